"""A loopback stand-in for the hosts' model providers: the Anthropic Messages API (Claude Code)
and the OpenAI Responses API (Codex), both streamed as server-sent events.

Run as a process (`python model_stub.py DIR`) so it can live in a network namespace of its own
that the hosts join; it talks to the tests through files only:
- `DIR/port`: written once the server listens;
- `DIR/requests.jsonl`: one line per request ({"path", "body"}), what reached "the model";
- `DIR/script.json` (read at every request): a list of rules `{"when": TEXT, "tool": NAME,
  "input": {...}}`: when the user text holds TEXT and no tool result has come back yet,
  answer with that tool call; otherwise (and after the tool result) answer with plain text.
"""

from __future__ import annotations

import json
import sys
import threading
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
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
            tool_done = tool_done or any(b.get("type") == "tool_result" for b in blocks)
            if message.get("role") == "user":
                texts.extend(b.get("text", "") for b in blocks if b.get("type") == "text")
        return " ".join(texts), tool_done
    for item in body.get("input") or []:  # OpenAI Responses
        tool_done = tool_done or item.get("type") == "function_call_output"
        if item.get("role") == "user":
            texts.extend(p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict))
    return " ".join(texts), tool_done


def _pick_tool(directory: Path, body: dict) -> dict | None:
    try:
        rules = json.loads((directory / "script.json").read_text())
    except (OSError, ValueError):
        return None
    text, tool_done = _user_text(body)
    if tool_done:
        return None
    return next((rule for rule in rules if rule["when"] in text), None)


def _sse(events: list[tuple[str, dict]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def anthropic_events(model: str, tool: dict | None) -> list[tuple[str, dict]]:
    if tool:
        block = {"type": "tool_use", "id": "toolu_stub1", "name": tool["tool"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(tool["input"])}
        stop = "tool_use"
    else:
        block, delta, stop = {"type": "text", "text": ""}, {"type": "text_delta", "text": REPLY_TEXT}, "end_turn"
    message = {"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    return [("message_start", {"type": "message_start", "message": message}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 3}}),
            ("message_stop", {"type": "message_stop"})]


def responses_events(tool: dict | None) -> list[tuple[str, dict]]:
    if tool:
        item = {"type": "function_call", "id": "fc_stub1", "call_id": "call_stub1",
                "name": tool["tool"], "arguments": json.dumps(tool["input"])}
        if "namespace" in tool:  # Codex's MCP tools: {"namespace": "mcp__memvet__", "name": tool}
            item["namespace"] = tool["namespace"]
    else:
        item = {"type": "message", "role": "assistant", "id": "msg_stub",
                "content": [{"type": "output_text", "text": REPLY_TEXT}]}
    usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 3,
             "output_tokens_details": None, "total_tokens": 13}
    events = [{"type": "response.created", "response": {"id": "resp_stub"}},
              {"type": "response.output_item.done", "item": item},
              {"type": "response.completed", "response": {"id": "resp_stub", "usage": usage}}]
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
            self._send(200, _sse(responses_events(_pick_tool(self.directory, body))), "text/event-stream")
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
