"""A loopback stand-in for the hosts' model providers: the Anthropic Messages API (Claude Code)
and the OpenAI Responses API (Codex), both streamed as server-sent events.

Run as a process (`python model_stub.py DIR`) so it can live in a network namespace of its own
that the hosts join; it talks to the tests through files only:
- `DIR/port`: written once the server listens;
- `DIR/requests.jsonl`: one line per request ({"path", "body"}), what reached "the model";
- `DIR/script.json` (read at every request): a list of rules `{"when": TEXT, "tool": NAME,
  "input": {...}}` (and `"api": "messages"|"responses"` to serve one API only): when the user
  text holds TEXT and no tool result has come back yet,
  answer with that tool call; otherwise (and after the tool result) answer with plain text.
  With `"search": QUERY` and `"namespace": NS` (Responses API) it plays what a model does with
  the MCP tools Codex defers: wait until Codex announces NS, search for QUERY, call the tool the
  search found (see `_deferred_step`).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPLY_TEXT = "stub reply"


def _user_text(body: dict) -> tuple[str, bool]:
    """All user text of the request, and whether a tool result came back already (the tests
    play one turn per session, so one tool call per session is all a rule asks for)."""
    texts, tool_done = [], False
    if "messages" in body:  # Anthropic; hook context sits in system-role messages around it
        for message in body["messages"]:
            content = message.get("content")
            blocks = (
                [{"type": "text", "text": content}] if isinstance(content, str) else content or []
            )
            tool_done = tool_done or any(b.get("type") == "tool_result" for b in blocks)
            if message.get("role") == "user":
                texts.extend(b.get("text", "") for b in blocks if b.get("type") == "text")
        return " ".join(texts), tool_done
    for item in body.get("input") or []:  # OpenAI Responses
        tool_done = tool_done or item.get("type") == "function_call_output"
        if item.get("role") == "user":
            texts.extend(
                p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict)
            )
    return " ".join(texts), tool_done


# A cheap Codex tool to wait with, ≤ 30 s of waits in all (a server Codex gave up on, past
# its startup_timeout_sec, is not announced however long one waits).
WAIT_TOOL, WAIT_S, MAX_WAITS = "get_goal", 0.25, 120


def _deferred_step(rule: dict, body: dict) -> dict | None:
    """The next step with a tool Codex defers. Codex 0.171 starts MCP servers without waiting
    for them, announces a server's tools once it is up (a developer message "Added deferred
    tool namespaces: - NS: …") and makes them callable only through its `tool_search` (BM25
    over the tools' names and descriptions). So: while NS is not announced, call WAIT_TOOL
    (the turn goes on); then search for the rule's query; then call the rule's tool as the
    search returned it (namespace and name), or answer in text when the search did not find
    it; after its output, plain text."""
    items = body.get("input") or []
    if any(
        i.get("type") == "function_call_output" and i.get("call_id") == "call_stub1" for i in items
    ):
        return None
    outputs = [i for i in items if i.get("type") == "tool_search_output"]
    if outputs:
        for entry in outputs[-1].get("tools") or []:  # namespaces holding tools, or tools
            namespace = (
                entry.get("name") if entry.get("type") == "namespace" else entry.get("namespace")
            )
            for found in (
                entry.get("tools", [entry]) if entry.get("type") == "namespace" else [entry]
            ):
                if found.get("name") == rule["tool"]:
                    return {"tool": rule["tool"], "input": rule["input"], "namespace": namespace}
        return None
    announced = any(
        i.get("role") == "developer"
        and "Added deferred tool namespaces" in json.dumps(i)
        and f"- {rule['namespace']}:" in json.dumps(i)
        for i in items
    )
    waits = sum(i.get("type") == "function_call" and i.get("name") == WAIT_TOOL for i in items)
    if not announced and waits < MAX_WAITS:
        time.sleep(WAIT_S)
        return {"tool": WAIT_TOOL, "input": {}, "call_id": f"call_wait{waits}"}
    return {"search": rule["search"]}


def _pick_tool(directory: Path, body: dict) -> dict | None:
    try:
        rules = json.loads((directory / "script.json").read_text())
    except (OSError, ValueError):
        return None
    text, tool_done = _user_text(body)
    api = "responses" if "input" in body else "messages"
    rule = next(
        (rule for rule in rules if rule["when"] in text and rule.get("api", api) == api), None
    )
    if rule and "search" in rule and "input" in body:
        return _deferred_step(rule, body)
    return None if tool_done else rule


def _sse(events: list[tuple[str, dict]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def anthropic_events(model: str, tool: dict | None) -> list[tuple[str, dict]]:
    if tool:
        block = {"type": "tool_use", "id": "toolu_stub1", "name": tool["tool"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(tool["input"])}
        stop = "tool_use"
    else:
        block, delta, stop = (
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": REPLY_TEXT},
            "end_turn",
        )
    message = {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 3},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def responses_events(tool: dict | None) -> list[tuple[str, dict]]:
    if tool and "tool" not in tool:  # a client-side tool search (see the module doc)
        item = {
            "type": "tool_search_call",
            "id": "ts_stub1",
            "call_id": "call_search1",
            "execution": "client",
            "status": "completed",
            "arguments": {"query": tool["search"], "limit": 8},
        }
    elif tool:
        call_id = tool.get("call_id", "call_stub1")
        item = {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": tool["tool"],
            "arguments": json.dumps(tool["input"]),
        }
        if tool.get("namespace"):  # Codex's MCP tools: {"namespace": "mcp__memvet__", "name": tool}
            item["namespace"] = tool["namespace"]
    else:
        item = {
            "type": "message",
            "role": "assistant",
            "id": "msg_stub",
            "content": [{"type": "output_text", "text": REPLY_TEXT}],
        }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": None,
        "output_tokens": 3,
        "output_tokens_details": None,
        "total_tokens": 13,
    }
    events = [
        {"type": "response.created", "response": {"id": "resp_stub"}},
        {"type": "response.output_item.done", "item": item},
        {"type": "response.completed", "response": {"id": "resp_stub", "usage": usage}},
    ]
    return [(event["type"], event) for event in events]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    directory: Path
    lock = threading.Lock()

    def log_message(self, *args: object) -> None:  # quiet: the requests file is the record
        pass

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._record({})
        self._send(404, b"{}", "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": len(raw)}
        self._record(body)
        path = self.path.split("?", 1)[0]
        if path.endswith("/messages/count_tokens"):
            self._send(200, b'{"input_tokens": 10}', "application/json")
        elif path.endswith("/messages"):
            events = anthropic_events(body.get("model", "stub"), _pick_tool(self.directory, body))
            self._send(200, _sse(events), "text/event-stream")
        elif path.endswith("/responses"):
            self._send(
                200, _sse(responses_events(_pick_tool(self.directory, body))), "text/event-stream"
            )
        else:
            self._send(404, b"{}", "application/json")

    def _record(self, body: dict) -> None:
        line = json.dumps({"method": self.command, "path": self.path, "body": body})
        with self.lock, open(self.directory / "requests.jsonl", "a", encoding="utf-8") as out:
            out.write(line + "\n")


def main(directory: str) -> None:
    Handler.directory = Path(directory)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    (Handler.directory / "port.tmp").write_text(str(server.server_address[1]))
    (Handler.directory / "port.tmp").replace(Handler.directory / "port")
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
