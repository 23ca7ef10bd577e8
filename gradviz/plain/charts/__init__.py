"""The charts' numbers, decided without Qt: TensorBoard's smoothing, what runs along the x
axis, the step two runs' bars are drawn at, the cosine matrix's labels and the memory
chart's two rows."""
