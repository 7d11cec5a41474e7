//! NTT and polynomial engine (in progress).
