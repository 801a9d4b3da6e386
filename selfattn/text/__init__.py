"""Text and models: cleaning a sentence (``embedding_text``), where token vectors come from
(``sources``, the registry, behind ``embeddings.embed``; ``charvec``, ``models``, ``bert``), reading a model's attention (``readout``) and
fetching models ahead of time (``prefetch``)."""
