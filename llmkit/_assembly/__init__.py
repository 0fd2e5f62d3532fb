"""The assembler: the one provider-neutral state machine every wire's decoder writes into
(``assembler.Assembler``), its tool-call slots (``tool_calls.ToolCalls``), the blocks it builds
(``blocks``) and its output channel with the reporting rules all wires share (``reports``)."""
