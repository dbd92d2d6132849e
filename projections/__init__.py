"""Read models: pure folds over events, and (later) the projection runner (DESIGN 8)."""
