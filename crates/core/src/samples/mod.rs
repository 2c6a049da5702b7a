//! Samples as the model defines them, and the codec the store keeps them in:
//! compressed columnar chunks per run and GPU (see [`codec`]). Nothing above
//! the store sees that layout: writers push [`Sample`]s, readers get a
//! [`SeriesFrame`] per GPU.

mod bitpack;
pub mod codec;
pub mod envelope;

pub use breakpoint_model::samples::*;
