//! The graph signature (docs/PYTORCH.md §2.6, §5): AOT `GraphSignature`
//! from the graph's names and the metadata, and export's input/output specs.
//!
//! Quirks kept for compatibility (tests depend on them), and documented:
//! * Q1: `loss_output = output_names[loss_index]` indexes the *full* output
//!   list (mutated inputs first), as PyTorch does;
//! * Q2: user-input gradient names are looked up at
//!   `input_names[i + #params_and_buffers]`, ignoring token placeholders, as
//!   PyTorch does (identical when there are no tokens).

use serde::Serialize;
use std::collections::BTreeMap;

/// Kind of a forward input, for the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SigKind {
    /// A user input (tensor or not).
    UserInput,
    /// A parameter.
    Parameter,
    /// A buffer.
    Buffer,
    /// A side-effect token.
    Token,
}

/// One forward input as the signature sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SigInput {
    /// Kind.
    pub kind: SigKind,
    /// FQN of a parameter or buffer.
    pub fqn: Option<String>,
    /// requires_grad.
    pub requires_grad: bool,
    /// Data mutation seen by the trace.
    pub mutates_data: bool,
}

/// The graph's names and mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SigGraph {
    /// Placeholder names.
    pub input_names: Vec<String>,
    /// Output names (`None` for non-node outputs).
    pub output_names: Vec<Option<String>>,
    /// Joint graph.
    pub trace_joint: bool,
    /// Forward user outputs in a joint graph.
    pub num_user_fw_outs: Option<usize>,
    /// Loss index (joint graphs).
    pub loss_index: Option<usize>,
}

/// Gradients and loss of a joint graph.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BackwardSignature {
    /// Gradient output name → parameter FQN.
    pub gradients_to_parameters: BTreeMap<String, String>,
    /// Gradient output name → user input name.
    pub gradients_to_user_inputs: BTreeMap<String, String>,
    /// The loss output's name.
    pub loss_output: String,
}

/// One export input spec (§5.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputSpec {
    /// `USER_INPUT`, `PARAMETER`, `BUFFER`, `TOKEN`.
    pub kind: &'static str,
    /// The placeholder name.
    pub arg: String,
    /// FQN of a parameter or buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Buffers: persistent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
}

/// One export output spec (§5.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutputSpec {
    /// `USER_OUTPUT`, `LOSS_OUTPUT`, `BUFFER_MUTATION`, `PARAMETER_MUTATION`,
    /// `USER_INPUT_MUTATION`, `GRADIENT_TO_PARAMETER`, `GRADIENT_TO_USER_INPUT`, `TOKEN`.
    pub kind: &'static str,
    /// The output name.
    pub arg: Option<String>,
    /// What it mutates or is the gradient of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// The AOT graph signature (§1.8) plus export specs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GraphSignature {
    /// Parameter FQNs.
    pub parameters: Vec<String>,
    /// Buffer FQNs.
    pub buffers: Vec<String>,
    /// User input names.
    pub user_inputs: Vec<String>,
    /// User output names.
    pub user_outputs: Vec<Option<String>>,
    /// Placeholder name → parameter FQN.
    pub inputs_to_parameters: BTreeMap<String, String>,
    /// Placeholder name → buffer FQN.
    pub inputs_to_buffers: BTreeMap<String, String>,
    /// Output name → buffer FQN.
    pub buffers_to_mutate: BTreeMap<String, String>,
    /// Output name → parameter FQN.
    pub parameters_to_mutate: BTreeMap<String, String>,
    /// Output name → user input name.
    pub user_inputs_to_mutate: BTreeMap<String, String>,
    /// Token placeholders.
    pub input_tokens: Vec<String>,
    /// Token outputs.
    pub output_tokens: Vec<Option<String>>,
    /// Joint graphs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backward_signature: Option<BackwardSignature>,
    /// Export input specs.
    pub input_specs: Vec<InputSpec>,
    /// Export output specs.
    pub output_specs: Vec<OutputSpec>,
}

/// Why a signature cannot be built: the assertion a compiler would raise.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// Placeholder names do not match the inputs.
    #[error("graph.input_names: {placeholders} placeholders for {inputs} inputs")]
    InputNames {
        /// Number of names.
        placeholders: usize,
        /// Number of inputs.
        inputs: usize,
    },
    /// Inputs are not in the export order.
    #[error("inputs must be ordered tokens, parameters, buffers, user inputs")]
    InputOrder,
    /// A joint graph without `num_user_fw_outs`.
    #[error("graph.num_user_fw_outs is required for a joint graph")]
    NumUserFwOutsMissing,
    /// Not even the mutated inputs and tokens are returned.
    #[error("fewer graph outputs than mutated inputs and tokens")]
    FewerOutputs,
    /// Some mutation is metadata-only.
    #[error("{mutated} inputs mutate data but {num_mutated} are mutated out of the graph: export cannot have metadata-only mutations (Found an input that received a metadata mutation)")]
    MetadataOnlyMutation {
        /// Inputs that mutate data.
        mutated: usize,
        /// Inputs mutated out of the graph.
        num_mutated: usize,
    },
    /// Fewer outputs than the forward needs.
    #[error("graph.output_names: {outputs} outputs, need at least {need}")]
    TooFewOutputs {
        /// Outputs given.
        outputs: usize,
        /// Outputs needed.
        need: usize,
    },
    /// A parameter mutated in a joint graph.
    #[error("parameter `{0}` is mutated in a joint graph")]
    ParameterMutatedInJoint(String),
    /// A token is mutated.
    #[error("a token cannot be mutated")]
    TokenMutated,
    /// Fewer backward outputs than parameters that require grad.
    #[error("fewer backward outputs than parameters requiring grad")]
    FewerBackwardOutputs,
    /// No gradient for a user input that requires grad.
    #[error("no gradient output left for user input {0}")]
    NoGradientForUserInput(usize),
    /// Backward outputs left over.
    #[error("more backward outputs than gradients of parameters and user inputs")]
    ExtraBackwardOutputs,
    /// A joint graph without `loss_index`.
    #[error("graph.loss_index is required for a joint graph")]
    LossIndexMissing,
    /// `loss_index` does not name an output.
    #[error("graph.loss_index {0} is not an output")]
    LossIndexNotAnOutput(usize),
    /// A backward output that is no gradient.
    #[error("backward output `{0}` is no gradient")]
    NotAGradient(String),
    /// Outputs left after the user outputs (no joint graph).
    #[error("graph.output_names: {0} outputs left over after the user outputs")]
    LeftoverOutputs(usize),
}

/// Builds the signature; `num_mutated` is `num_mutated_inp_runtime_indices`.
/// Errors are the assertion messages a compiler would raise.
///
/// Phases (PyTorch's order): the placeholders' layout, the input specs, the
/// forward outputs (tokens, mutated inputs, user outputs), then for a joint
/// graph the backward signature and the gradient outputs.
pub(crate) fn create_graph_signature(
    g: &SigGraph,
    inputs: &[SigInput],
    num_mutated: usize,
) -> Result<GraphSignature, SignatureError> {
    let layout = Layout::of(g, inputs, num_mutated)?;
    let mut sig = GraphSignature::default();
    input_specs(&mut sig, g, inputs);
    let outs = &g.output_names;
    let (tokens, rest) = outs.split_at(layout.tokens);
    let (mutations, rest) = rest.split_at(num_mutated);
    let (user, backward) = rest.split_at(layout.fw_end - layout.tokens - num_mutated);
    token_outputs(&mut sig, tokens);
    mutation_outputs(&mut sig, g, inputs, mutations)?;
    sig.user_outputs = user.to_vec();
    if g.trace_joint {
        let b = backward_signature(g, inputs, &layout, backward)?;
        user_output_specs(&mut sig, Some(&b.loss_output));
        gradient_output_specs(&mut sig, &b, backward)?;
        sig.backward_signature = Some(b);
    } else {
        if !backward.is_empty() {
            return Err(SignatureError::LeftoverOutputs(backward.len()));
        }
        user_output_specs(&mut sig, None);
    }
    Ok(sig)
}

/// The placeholders' layout (`tokens | parameters | buffers | user inputs`)
/// and where the forward outputs end, checked against the graph.
struct Layout {
    tokens: usize,
    /// Parameters and buffers.
    params_and_buffers: usize,
    /// The end of the forward outputs (tokens, mutated inputs, user outputs).
    fw_end: usize,
}

impl Layout {
    fn of(g: &SigGraph, inputs: &[SigInput], num_mutated: usize) -> Result<Layout, SignatureError> {
        let count = |k: SigKind| inputs.iter().filter(|x| x.kind == k).count();
        let tokens = count(SigKind::Token);
        if g.input_names.len() != inputs.len() {
            return Err(SignatureError::InputNames {
                placeholders: g.input_names.len(),
                inputs: inputs.len(),
            });
        }
        let rank = |x: &SigInput| match x.kind {
            SigKind::Token => 0,
            SigKind::Parameter => 1,
            SigKind::Buffer => 2,
            SigKind::UserInput => 3,
        };
        if inputs.windows(2).any(|w| rank(&w[0]) > rank(&w[1])) {
            return Err(SignatureError::InputOrder);
        }
        let outs = g.output_names.len();
        let num_user_fw_outs = if g.trace_joint {
            g.num_user_fw_outs
                .ok_or(SignatureError::NumUserFwOutsMissing)?
        } else {
            outs.checked_sub(num_mutated + tokens)
                .ok_or(SignatureError::FewerOutputs)?
        };
        // Mutated inputs, by name (metadata-only mutations cannot appear here).
        let mutated = inputs.iter().filter(|x| x.mutates_data).count();
        if mutated != num_mutated {
            return Err(SignatureError::MetadataOnlyMutation {
                mutated,
                num_mutated,
            });
        }
        let fw_end = tokens + num_mutated + num_user_fw_outs;
        if outs < fw_end {
            return Err(SignatureError::TooFewOutputs {
                outputs: outs,
                need: fw_end,
            });
        }
        Ok(Layout {
            tokens,
            params_and_buffers: count(SigKind::Parameter) + count(SigKind::Buffer),
            fw_end,
        })
    }
}

/// One input spec per placeholder, and the input lists and maps.
fn input_specs(sig: &mut GraphSignature, g: &SigGraph, inputs: &[SigInput]) {
    for (x, name) in inputs.iter().zip(&g.input_names) {
        let fqn = x.fqn.clone().unwrap_or_default();
        let (kind, target, persistent) = match x.kind {
            SigKind::Token => {
                sig.input_tokens.push(name.clone());
                ("TOKEN", None, None)
            }
            SigKind::Parameter => {
                sig.parameters.push(fqn.clone());
                sig.inputs_to_parameters.insert(name.clone(), fqn.clone());
                ("PARAMETER", Some(fqn), None)
            }
            SigKind::Buffer => {
                sig.buffers.push(fqn.clone());
                sig.inputs_to_buffers.insert(name.clone(), fqn.clone());
                ("BUFFER", Some(fqn), Some(true))
            }
            SigKind::UserInput => {
                sig.user_inputs.push(name.clone());
                ("USER_INPUT", None, None)
            }
        };
        sig.input_specs.push(InputSpec {
            kind,
            arg: name.clone(),
            target,
            persistent,
        });
    }
}

fn token_outputs(sig: &mut GraphSignature, tokens: &[Option<String>]) {
    sig.output_tokens = tokens.to_vec();
    for t in tokens {
        sig.output_specs.push(OutputSpec {
            kind: "TOKEN",
            arg: t.clone(),
            target: None,
        });
    }
}

/// The outputs carrying the mutated inputs' new values, in input order,
/// classified by what each input is.
fn mutation_outputs(
    sig: &mut GraphSignature,
    g: &SigGraph,
    inputs: &[SigInput],
    outs: &[Option<String>],
) -> Result<(), SignatureError> {
    let mutated = inputs
        .iter()
        .zip(&g.input_names)
        .filter(|(x, _)| x.mutates_data);
    for ((x, name), out) in mutated.zip(outs) {
        let key = out.clone().unwrap_or_default();
        let target = x.fqn.clone().unwrap_or_else(|| name.clone());
        let kind = match x.kind {
            SigKind::Buffer => {
                sig.buffers_to_mutate.insert(key, target.clone());
                "BUFFER_MUTATION"
            }
            SigKind::Parameter => {
                if g.trace_joint {
                    return Err(SignatureError::ParameterMutatedInJoint(target));
                }
                sig.parameters_to_mutate.insert(key, target.clone());
                "PARAMETER_MUTATION"
            }
            SigKind::UserInput => {
                sig.user_inputs_to_mutate.insert(key, target.clone());
                "USER_INPUT_MUTATION"
            }
            SigKind::Token => return Err(SignatureError::TokenMutated),
        };
        sig.output_specs.push(OutputSpec {
            kind,
            arg: out.clone(),
            target: Some(target),
        });
    }
    Ok(())
}

/// A joint graph's backward signature: gradients of the parameters (and
/// buffers) that require grad, then of the user inputs, then the loss.
fn backward_signature(
    g: &SigGraph,
    inputs: &[SigInput],
    layout: &Layout,
    backward: &[Option<String>],
) -> Result<BackwardSignature, SignatureError> {
    let mut next = backward.iter();
    let mut b = BackwardSignature::default();
    for x in inputs
        .iter()
        .filter(|x| matches!(x.kind, SigKind::Parameter | SigKind::Buffer) && x.requires_grad)
    {
        let n = next
            .next()
            .cloned()
            .flatten()
            .ok_or(SignatureError::FewerBackwardOutputs)?;
        b.gradients_to_parameters
            .insert(n, x.fqn.clone().unwrap_or_default());
    }
    let user_start = layout.tokens + layout.params_and_buffers;
    for (k, x) in inputs[user_start..].iter().enumerate() {
        if x.requires_grad {
            let n = next
                .next()
                .cloned()
                .flatten()
                .ok_or(SignatureError::NoGradientForUserInput(k))?;
            // Q2: PyTorch looks the name up without the token offset.
            let at = (k + layout.params_and_buffers).min(g.input_names.len() - 1);
            b.gradients_to_user_inputs
                .insert(n, g.input_names[at].clone());
        }
    }
    if next.next().is_some() {
        return Err(SignatureError::ExtraBackwardOutputs);
    }
    let loss_index = g.loss_index.ok_or(SignatureError::LossIndexMissing)?;
    // Q1: the index is applied to the full output list.
    b.loss_output = g
        .output_names
        .get(loss_index)
        .cloned()
        .flatten()
        .ok_or(SignatureError::LossIndexNotAnOutput(loss_index))?;
    Ok(b)
}

/// The user outputs' specs; the one named `loss` is the loss output.
fn user_output_specs(sig: &mut GraphSignature, loss: Option<&str>) {
    for o in &sig.user_outputs {
        let kind = if loss.is_some() && o.as_deref() == loss {
            "LOSS_OUTPUT"
        } else {
            "USER_OUTPUT"
        };
        sig.output_specs.push(OutputSpec {
            kind,
            arg: o.clone(),
            target: None,
        });
    }
}

/// The backward outputs' specs: each a gradient of a parameter or an input.
fn gradient_output_specs(
    sig: &mut GraphSignature,
    b: &BackwardSignature,
    backward: &[Option<String>],
) -> Result<(), SignatureError> {
    for o in backward {
        let key = o.clone().unwrap_or_default();
        let (kind, target) = match (
            b.gradients_to_parameters.get(&key),
            b.gradients_to_user_inputs.get(&key),
        ) {
            (Some(p), _) => ("GRADIENT_TO_PARAMETER", p.clone()),
            (_, Some(u)) => ("GRADIENT_TO_USER_INPUT", u.clone()),
            _ => return Err(SignatureError::NotAGradient(key)),
        };
        sig.output_specs.push(OutputSpec {
            kind,
            arg: o.clone(),
            target: Some(target),
        });
    }
    Ok(())
}
