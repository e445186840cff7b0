//! The event contracts: the versioned messages factgate reads and writes. Each has a JSON Schema
//! in `schemas/` and an example in `schemas/examples/`.
