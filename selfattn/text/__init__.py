"""Text and models: cleaning a sentence (``embedding_text``), where token vectors come from
(``embeddings``, ``charvec``, ``models``, ``bert``), reading a model's attention (``readout``) and
fetching models ahead of time (``prefetch``)."""
