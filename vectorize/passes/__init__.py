"""One rewriting pass per module; `vectorize.pipeline` lists their order."""
