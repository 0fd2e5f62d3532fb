"""JSON for the hot path: ``scanner.loads`` (one event's JSON, through the C scanner), and the
incremental partial-JSON parser behind ``partial_arguments`` (``partial.PartialJSON`` over the
state machine in ``machine`` and its open containers in ``frames``): linear in the text's
length however it is cut, with a classification of the final text (complete, recovered,
invalid)."""
