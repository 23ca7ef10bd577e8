"""What a session did, as plain data: each phase's and step's records (records), errors
and divergence with their explanations (events), the run so far as arrays for the charts
(history), and the two small records the window and the engine exchange besides: the
engine's settings (engine_settings) and the stages its heartbeat names (engine_stages)."""
