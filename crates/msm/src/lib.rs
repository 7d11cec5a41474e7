//! Multi-scalar multiplication engine (in progress).
