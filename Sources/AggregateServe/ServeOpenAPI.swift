import AggregateJSON

/// `GET /openapi.json`: the OpenAPI 3.1 document of the service itself (checked by `.ci/serve.sh` with
/// openapi-spec-validator and a bounded schemathesis run).
enum ServeOpenAPI {
    static func document(providers: [String]) -> JSONValue {
        let error: JSONValue = [
            "type": "object", "required": ["error"],
            "properties": ["error": ["type": ["object", "string"]], "status": ["type": "integer"], "message": ["type": "string"]],
        ]
        func jsonResponse(_ description: String, _ schema: JSONValue = ["type": "object"]) -> JSONValue {
            ["description": .string(description), "content": ["application/json": ["schema": schema]]]
        }
        let errors: JSONValue = jsonResponse("An error: `{\"error\": ..., \"status\": N}`.", error)
        func withErrors(_ responses: JSONObject) -> JSONValue {
            var all = responses
            for status in ["400", "401", "404", "405", "429"] { all[status] = errors }
            return .object(all)
        }
        let provider: JSONValue = [
            "name": "provider", "in": "path", "required": true, "description": "A provider's name, e.g. `hackernews`.",
            "schema": ["type": "string", "enum": .array(providers.map(JSONValue.string))],
        ]
        let result: JSONValue = [
            "description": "What `aggregate <provider> <operation> ... --format json` prints (Schemas/aggregate-result.schema.json), or NDJSON or CSV with `format`.",
            "content": [
                "application/json": ["schema": ["type": "object", "required": ["schemaVersion", "results"]]],
                "application/x-ndjson": ["schema": ["type": "string"]],
                "text/csv": ["schema": ["type": "string"]],
            ],
        ]
        let failedRun: JSONValue = [
            "description": "The run failed upstream; the result document carries its error.",
            "content": ["application/json": ["schema": ["type": "object"]]],
        ]
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "aggregate serve", "version": "1",
                "description": "Every provider of `aggregate` over HTTP (docs/serve.md). With --token-file, every request needs `Authorization: Bearer <token>`.",
            ],
            "components": ["securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]]],
            "paths": [
                "/healthz": ["get": ["operationId": "health", "summary": "Liveness.", "responses": withErrors(["200": jsonResponse("OK.")])]],
                "/metrics": [
                    "get": [
                        "operationId": "metrics", "summary": "Prometheus text format.",
                        "responses": withErrors(["200": ["description": "The metrics.", "content": ["text/plain": ["schema": ["type": "string"]]]]]),
                    ]
                ],
                "/openapi.json": ["get": ["operationId": "openapi", "summary": "This document.", "responses": withErrors(["200": jsonResponse("This document.")])]],
                "/v1/providers": [
                    "get": ["operationId": "providers", "summary": "Every provider's descriptor.", "responses": withErrors(["200": jsonResponse("The descriptors.", ["type": "array"])])]
                ],
                "/v1/providers/{provider}": [
                    "get": [
                        "operationId": "provider", "summary": "One provider's descriptor.", "parameters": [provider],
                        "responses": withErrors(["200": jsonResponse("The descriptor.")]),
                    ]
                ],
                "/v1/compare": [
                    "post": [
                        "operationId": "compare",
                        "summary": "Runs several invocations at once, as `aggregate compare ... --format json`.",
                        "requestBody": [
                            "required": true,
                            "content": [
                                "application/json": [
                                    "schema": [
                                        "type": "object", "required": ["invocations"], "additionalProperties": false,
                                        "properties": [
                                            "invocations": [
                                                "type": "array", "minItems": 1, "maxItems": 10,
                                                "items": ["type": "string", "minLength": 1, "examples": ["tmdb search batman", "kiva newest"]],
                                            ],
                                            "limit": ["type": "integer", "minimum": 1, "maximum": 10000],
                                        ],
                                    ]
                                ]
                            ],
                        ],
                        "responses": withErrors([
                            "200": jsonResponse("What `aggregate compare ... --format json` prints: every result, and `comparison`.", ["type": "object", "required": ["schemaVersion", "results", "comparison"]]),
                            "413": errors, "504": errors,
                        ]),
                    ]
                ],
                "/v1/sql": [
                    "get": [
                        "operationId": "sql", "summary": "One SQL statement over the provider tables, as `aggregate sql \"<statement>\" --format json`.",
                        "parameters": [
                            ["name": "q", "in": "query", "required": true, "schema": ["type": "string", "minLength": 1, "examples": ["SELECT title FROM tmdb_popular LIMIT 5"]]]
                        ],
                        "responses": withErrors([
                            "200": jsonResponse("What `aggregate sql ... --format json` prints.", ["type": "object", "required": ["schemaVersion", "columns", "rows"]]),
                            "500": errors, "502": errors, "504": errors,
                        ]),
                    ]
                ],
                "/v1/{provider}/{operation}": [
                    "get": [
                        "operationId": "run", "summary": "Runs one operation that reads; other query parameters are the operation's, by name.",
                        "parameters": [
                            provider,
                            ["name": "operation", "in": "path", "required": true, "schema": ["type": "string", "pattern": "^[a-z][a-z0-9-]*$", "examples": ["search", "popular", "newest"]]],
                            ["name": "limit", "in": "query", "schema": ["type": "integer", "minimum": 1, "maximum": 1000]],
                            ["name": "format", "in": "query", "schema": ["type": "string", "enum": ["json", "ndjson", "csv"]]],
                        ],
                        "responses": withErrors([
                            "200": result, "502": failedRun, "504": failedRun,
                        ]),
                    ]
                ],
            ],
        ]
    }
}
