import Foundation
import MCP

extension DocketTools {
    private static let id: Value = ["type": "string", "description": "The item's id, or a unique prefix of it."]
    private static let lease: Value = [
        "type": "integer", "description": "Minutes the claim lasts unless renewed (1 to 1440; 60 by default).",
    ]
    private static let filters: [String: Value] = [
        "tags": ["type": "array", "items": ["type": "string"], "description": "Only items with all these tags."],
        "project": ["type": "string", "description": "A project's id or title: its tasks instead of the todos."],
        "priority": [
            "type": "array", "items": ["type": "string", "enum": ["high", "medium", "low"]],
            "description": "Only these priorities.",
        ],
        "limit": ["type": "integer", "description": "At most this many."],
    ]

    private static func schema(_ properties: [String: Value], required: [String] = []) -> Value {
        .object([
            "type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
        ])
    }

    /// Every tool, with its input schema and a one-line description.
    static let definitions: [Tool] = [
        Tool(
            name: "ready",
            description:
                "List open items you may start now: not waiting, not blocked, not held by another agent's live claim.",
            inputSchema: schema(filters)),
        Tool(
            name: "list", description: "List items by status (open, done, all) with the filters of ready.",
            inputSchema: schema(
                filters.merging([
                    "status": ["type": "string", "enum": ["open", "done", "all"]],
                    "words": ["type": "string", "description": "Words the text must contain."],
                    "waiting": ["type": "boolean", "description": "Also items that wait until a later date."],
                ]) { a, _ in a })),
        Tool(
            name: "show", description: "Show one item, with its notes and its claim.",
            inputSchema: schema(["id": id], required: ["id"])),
        Tool(
            name: "add", description: "Add a todo (or, with project, a task of that project); returns it with its id.",
            inputSchema: schema(
                [
                    "text": ["type": "string"], "tags": ["type": "array", "items": ["type": "string"]],
                    "project": ["type": "string"], "priority": ["type": "string", "enum": ["high", "medium", "low"]],
                    "due": ["type": "string", "description": "A date: today, fri, 2026-12-03 17:30, in 2 hours."],
                    "wait": ["type": "string", "description": "Hidden from ready until this date."],
                    "depends": [
                        "type": "array", "items": ["type": "string"], "description": "Ids of items it waits for.",
                    ],
                    "note": ["type": "string"],
                ], required: ["text"])),
        Tool(
            name: "update",
            description: "Change an item's text, priority, due or wait date (\"none\" clears), tags or dependencies.",
            inputSchema: schema(
                [
                    "id": id, "text": ["type": "string"], "priority": ["type": "string"], "due": ["type": "string"],
                    "wait": ["type": "string"], "add_tags": ["type": "array", "items": ["type": "string"]],
                    "remove_tags": ["type": "array", "items": ["type": "string"]],
                    "depends": ["type": "array", "items": ["type": "string"]],
                ], required: ["id"])),
        Tool(
            name: "complete", description: "Mark an item done (with an optional note), giving up your claim on it.",
            inputSchema: schema(["id": id, "note": ["type": "string"]], required: ["id"])),
        Tool(
            name: "note", description: "Add a dated note to an item.",
            inputSchema: schema(["id": id, "text": ["type": "string"]], required: ["id", "text"])),
        Tool(
            name: "claim_next",
            description:
                "Claim a ready item that matches the filters (one of the first few, fixed by your name); returns it.",
            inputSchema: schema(
                filters.merging([
                    "lease_minutes": lease,
                    "sync": [
                        "type": "boolean",
                        "description": "Sync right after, and take the next item if an earlier claim came in.",
                    ],
                ]) { a, _ in a })),
        Tool(
            name: "claim",
            description: "Claim one item, so ready leaves it out for other agents; renews a claim you hold.",
            inputSchema: schema(["id": id, "lease_minutes": lease], required: ["id"])),
        Tool(
            name: "heartbeat",
            description: "Renew your claim while you work; fails, naming the holder, if you lost it.",
            inputSchema: schema(["id": id, "lease_minutes": lease], required: ["id"])),
        Tool(
            name: "release", description: "Give up your claim on an item without completing it.",
            inputSchema: schema(["id": id], required: ["id"])),
        Tool(
            name: "sync",
            description:
                "Commit, pull and push; returns what arrived and each claim you lost (to an earlier claim in a merge, "
                + "or the item completed by another), once.",
            inputSchema: schema([
                "remote": ["type": "string", "description": "The remote (the store's own by default)."]
            ])),
        Tool(
            name: "merges", description: "The last merges' decisions, with the values and claims that lost.",
            inputSchema: schema(["limit": ["type": "integer", "description": "How many merges (5 by default)."]])),
    ]
}
