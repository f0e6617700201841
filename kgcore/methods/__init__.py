"""QA methods written once against the LLM protocol: FastToG, baselines, ToG, CGPE."""
