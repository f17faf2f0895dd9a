//! The graph signature (PYTORCH_REFERENCE §2.6, §5): AOT `GraphSignature`
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
pub enum SigKind {
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
pub struct SigInput {
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
pub struct SigGraph {
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

/// Builds the signature; `num_mutated` is `num_mutated_inp_runtime_indices`.
/// Errors are the assertion messages a compiler would raise.
pub fn create_graph_signature(
    g: &SigGraph,
    inputs: &[SigInput],
    num_mutated: usize,
) -> Result<GraphSignature, String> {
    let count = |k: SigKind| inputs.iter().filter(|x| x.kind == k).count();
    let (num_tokens, num_params, num_buffers) = (
        count(SigKind::Token),
        count(SigKind::Parameter),
        count(SigKind::Buffer),
    );
    if g.input_names.len() != inputs.len() {
        return Err(format!(
            "graph.input_names: {} placeholders for {} inputs",
            g.input_names.len(),
            inputs.len()
        ));
    }
    // Layout: tokens | parameters | buffers | user inputs.
    let rank = |x: &SigInput| match x.kind {
        SigKind::Token => 0,
        SigKind::Parameter => 1,
        SigKind::Buffer => 2,
        SigKind::UserInput => 3,
    };
    if inputs.windows(2).any(|w| rank(&w[0]) > rank(&w[1])) {
        return Err("inputs must be ordered tokens, parameters, buffers, user inputs".into());
    }
    let mut sig = GraphSignature::default();
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
    let outs = &g.output_names;
    let num_user_fw_outs = if g.trace_joint {
        g.num_user_fw_outs
            .ok_or("graph.num_user_fw_outs is required for a joint graph")?
    } else {
        outs.len()
            .checked_sub(num_mutated + num_tokens)
            .ok_or("fewer graph outputs than mutated inputs and tokens")?
    };
    // Mutated inputs, by name (metadata-only mutations cannot appear here).
    let mutated: Vec<&SigInput> = inputs.iter().filter(|x| x.mutates_data).collect();
    if mutated.len() != num_mutated {
        return Err(format!(
            "{} inputs mutate data but {} are mutated out of the graph: export cannot have metadata-only mutations (Found an input that received a metadata mutation)",
            mutated.len(),
            num_mutated
        ));
    }
    let fw_end = num_tokens + num_mutated + num_user_fw_outs;
    if outs.len() < fw_end {
        return Err(format!(
            "graph.output_names: {} outputs, need at least {fw_end}",
            outs.len()
        ));
    }
    sig.output_tokens = outs[..num_tokens].to_vec();
    for t in &sig.output_tokens {
        sig.output_specs.push(OutputSpec {
            kind: "TOKEN",
            arg: t.clone(),
            target: None,
        });
    }
    let name_of = |i: usize| -> String {
        let x = &inputs[i];
        x.fqn.clone().unwrap_or_else(|| g.input_names[i].clone())
    };
    let mutated_idx: Vec<usize> = (0..inputs.len())
        .filter(|&i| inputs[i].mutates_data)
        .collect();
    for (k, &i) in mutated_idx.iter().enumerate() {
        let out = outs[num_tokens + k].clone();
        let key = out.clone().unwrap_or_default();
        let target = name_of(i);
        let kind = match inputs[i].kind {
            SigKind::Buffer => {
                sig.buffers_to_mutate.insert(key, target.clone());
                "BUFFER_MUTATION"
            }
            SigKind::Parameter => {
                if g.trace_joint {
                    return Err(format!("parameter `{target}` is mutated in a joint graph"));
                }
                sig.parameters_to_mutate.insert(key, target.clone());
                "PARAMETER_MUTATION"
            }
            SigKind::UserInput => {
                sig.user_inputs_to_mutate.insert(key, target.clone());
                "USER_INPUT_MUTATION"
            }
            SigKind::Token => return Err("a token cannot be mutated".into()),
        };
        sig.output_specs.push(OutputSpec {
            kind,
            arg: out,
            target: Some(target),
        });
    }
    sig.user_outputs = outs[num_tokens + num_mutated..fw_end].to_vec();
    if g.trace_joint {
        let bw = &outs[fw_end..];
        let mut next = bw.iter();
        let mut b = BackwardSignature::default();
        let num_pb = num_params + num_buffers;
        for x in inputs
            .iter()
            .filter(|x| matches!(x.kind, SigKind::Parameter | SigKind::Buffer) && x.requires_grad)
        {
            let n = next.next().cloned().flatten().ok_or_else(|| {
                "fewer backward outputs than parameters requiring grad".to_string()
            })?;
            b.gradients_to_parameters
                .insert(n, x.fqn.clone().unwrap_or_default());
        }
        let user_start = num_tokens + num_pb;
        for (k, x) in inputs[user_start..].iter().enumerate() {
            if x.requires_grad {
                let n = next
                    .next()
                    .cloned()
                    .flatten()
                    .ok_or_else(|| format!("no gradient output left for user input {k}"))?;
                // Q2: PyTorch looks the name up without the token offset.
                let input_name = g.input_names[(k + num_pb).min(g.input_names.len() - 1)].clone();
                b.gradients_to_user_inputs.insert(n, input_name);
            }
        }
        if next.next().is_some() {
            return Err(
                "more backward outputs than gradients of parameters and user inputs".into(),
            );
        }
        let loss_index = g
            .loss_index
            .ok_or("graph.loss_index is required for a joint graph")?;
        // Q1: the index is applied to the full output list.
        b.loss_output = outs
            .get(loss_index)
            .cloned()
            .flatten()
            .ok_or_else(|| format!("graph.loss_index {loss_index} is not an output"))?;
        for o in &sig.user_outputs {
            let kind = if o.as_deref() == Some(b.loss_output.as_str()) {
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
        for o in bw {
            let key = o.clone().unwrap_or_default();
            let (kind, target) = match (
                b.gradients_to_parameters.get(&key),
                b.gradients_to_user_inputs.get(&key),
            ) {
                (Some(p), _) => ("GRADIENT_TO_PARAMETER", p.clone()),
                (_, Some(u)) => ("GRADIENT_TO_USER_INPUT", u.clone()),
                _ => return Err(format!("backward output `{key}` is no gradient")),
            };
            sig.output_specs.push(OutputSpec {
                kind,
                arg: o.clone(),
                target: Some(target),
            });
        }
        sig.backward_signature = Some(b);
    } else {
        if outs.len() != fw_end {
            return Err(format!(
                "graph.output_names: {} outputs left over after the user outputs",
                outs.len() - fw_end
            ));
        }
        for o in &sig.user_outputs {
            sig.output_specs.push(OutputSpec {
                kind: "USER_OUTPUT",
                arg: o.clone(),
                target: None,
            });
        }
    }
    Ok(sig)
}
