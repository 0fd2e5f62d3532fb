"""Tools: their definition (``definition``: ``Tool``, ``tool()``, ``tool_from_function()``) and
the validation of a call's arguments against them (``arguments``: ``decode_tool_call``, with
``extra_keys`` finding the keys a tool does not define)."""
