//! The metadata passes of AOTAutograd's input analysis (docs/PYTORCH.md §1,
//! §2): the metadata model with typed index spaces, duplicate-input removal,
//! synthetic bases for aliased mutated inputs, and the graph signature.
//!
//! * [`index`]: outer, deduped and inner input indices, intermediate bases and
//!   user outputs as distinct types.
//! * [`meta`]: `InputAliasInfo`, `OutputAliasInfo`, `MutationType` and its
//!   derivation, `ViewAndMutationMeta<I>` with derived counts, traced tangents
//!   as descriptors.
//! * [`dedupe`]: detection by object identity, `leafify` / `remove`,
//!   `remove_dupe_metadata`.
//! * [`synthetic`]: storage groups, the overlap question (answered exactly by
//!   the caller), merging, the inner calling convention,
//!   `create_synthetic_base_metadata`.
//!
//! Passes are pure functions from metadata to metadata; errors are the
//! messages a compiler raises, returned, never panics.

pub mod dedupe;
pub mod index;
pub mod meta;
pub mod signature;
pub mod synthetic;
