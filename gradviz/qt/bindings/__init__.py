"""Each view bound to the window's model in one place: a bind_* function observes the
model's fields the view shows, and writes the user's input on the view back into the
model. What a view shows never depends on the order its observers were connected in."""
