"""A person approves each risky tool call before it runs (approval is the caller's:
docs/design.md §6).

    python examples/approval.py                    # asks you, on the terminal, call by call
    python examples/approval.py --yes              # approves every call (for scripts and CI)
    printf 'n\\ny\\n' | python examples/approval.py  # answers read from stdin, one per line
    OPENAI_API_KEY=sk-... python examples/approval.py            # the real OpenAI API

Reading files runs without asking; deleting one is shown to the person first. A denied call is
not an exception and not the end of the loop: it goes back to the model as an error result
that says the person declined, and the model carries on with that knowledge. When stdin ends
(no more answers), every further call is denied: the safe default.

The "files" live in a dict, so nothing on your disk is touched. Without a key, llmkit's fake
provider plays a model that lists the files, then asks to delete two of them.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from _provider import add_arguments, connect  # examples/ is on sys.path when run as a script
from pydantic import BaseModel, Field

import llmkit
from llmkit.testing import FakeReply, FakeRequest, FakeToolCall

WORKSPACE = {"build/cache.bin": 40960, "notes/todo.txt": 120, "thesis.tex": 88000}


class ListFiles(BaseModel):
    """List the files in the workspace, with their sizes in bytes."""


class DeleteFile(BaseModel):
    """Delete a file from the workspace. Cannot be undone."""

    path: str = Field(description="The file's path, as list_files shows it")


TOOLS = [llmkit.tool(ListFiles), llmkit.tool(DeleteFile)]
NEEDS_APPROVAL = {"delete_file"}  # the caller's policy, not llmkit's


def run_tool(call: llmkit.ToolCall, args: BaseModel) -> str:
    """The caller's own tool implementations."""
    if isinstance(args, DeleteFile):
        if args.path not in WORKSPACE:
            return f"No such file: {args.path}"
        del WORKSPACE[args.path]
        return f"Deleted {args.path}"
    return json.dumps(WORKSPACE)


def approve(call: llmkit.ToolCall, args: BaseModel, *, yes: bool) -> bool:
    """Show the call to a person and return their decision."""
    print(f"\nThe model wants to run {call.name}({json.dumps(args.model_dump())})")
    if yes:
        print("Allow? [y/N] y (--yes)")
        return True
    try:
        answer = input("Allow? [y/N] ")
    except EOFError:  # no more answers: deny
        print("(no answer: denied)")
        return False
    if not sys.stdin.isatty():
        print(answer)  # show piped answers as if typed
    return answer.strip().lower() in ("y", "yes")


def loop(model: llmkit.Model, *, yes: bool, **options: Any) -> str:
    context = llmkit.Context(
        system="You tidy up a workspace. Ask for nothing; use the tools.",
        messages=[llmkit.user("Free some disk space: delete the big files.")],
        tools=TOOLS,
    )
    for _turn in range(6):
        reply = llmkit.complete(model, context, max_tokens=600, **options)
        context.messages.append(reply)  # the assistant turn goes before its results
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            tool = next((t for t in TOOLS if t.name == call.name), None)
            if tool is None:
                result = llmkit.tool_result(call, f"Unknown tool {call.name!r}", is_error=True)
                context.messages.append(result)
                continue
            try:
                args = llmkit.decode_tool_call(tool, call)
            except llmkit.ToolArgumentsError as e:
                context.messages.append(llmkit.tool_result(call, e.model_message, is_error=True))
                continue
            if call.name in NEEDS_APPROVAL and not approve(call, args, yes=yes):
                # Denied: an error result the model can read, and the loop goes on.
                text = f"The user declined this call ({call.name}). Do not retry it."
                print(f"-> denied: {call.name}")
                context.messages.append(llmkit.tool_result(call, text, is_error=True))
                continue
            output = run_tool(call, args)
            print(f"-> {call.name}: {output}")
            context.messages.append(llmkit.tool_result(call, output))
    return "(no answer after 6 turns)"


def fake_model(request: FakeRequest) -> FakeReply:
    """The model's part: list the files, ask to delete the two biggest, then report."""
    messages: list[dict[str, Any]] = request.body["messages"]
    results = [m for m in messages if m["role"] == "tool"]
    if not results:
        return FakeReply(tool_calls=[FakeToolCall("list_files", {})])
    if len(results) == 1:
        sizes = json.loads(results[0]["content"])
        biggest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:2]
        return FakeReply(
            "Deleting the two biggest files.",
            tool_calls=[FakeToolCall("delete_file", {"path": path}) for path in biggest],
        )
    # Which path each delete_file call named, from the assistant turns sent back to us.
    paths = {
        call["id"]: json.loads(call["function"]["arguments"]).get("path")
        for m in messages
        for call in m.get("tool_calls") or []
        if call["function"]["name"] == "delete_file"
    }
    deleted = [paths[r["tool_call_id"]] for r in results[1:] if r["content"].startswith("Deleted")]
    declined = [paths[r["tool_call_id"]] for r in results[1:] if "declined" in r["content"]]
    answer = f"Deleted {', '.join(deleted) or 'nothing'}."
    if declined:
        answer += f" You declined deleting {', '.join(declined)}, so I left it alone."
    return FakeReply(answer)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    parser.add_argument("--yes", action="store_true", help="approve every call without asking")
    ns = parser.parse_args()
    with connect(ns, fake_model) as (model, options):
        answer = loop(model, yes=ns.yes, **options)
    print(f"\n{answer}")
    print(f"Files left: {', '.join(sorted(WORKSPACE))}")


if __name__ == "__main__":
    main()
