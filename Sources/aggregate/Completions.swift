import AggregateCore
import AggregateDefinitions
import AggregateRendering
import AggregateText
import Foundation

/// What the shell completion scripts offer, gathered from the registry, the descriptors and the built-in commands,
/// so a provider added to the registry (or registered at run time) is completed without editing any script.
struct CompletionModel: Sendable {
    struct Option: Sendable {
        var name: String
        var help: String
        var takesValue: Bool
        /// The values to offer, or `nil` for free text.
        var values: [String]?
        /// Whether the value is a comma-separated list (`--fields title,url`).
        var isList = false
    }

    struct Operation: Sendable {
        var name: String
        var summary: String
        var options: [Option]
    }

    struct Entry: Sendable {
        var name: String
        var summary: String
        /// A provider's operations (empty for commands).
        var operations: [Operation] = []
        /// A command's options (a provider's are per operation).
        var options: [Option] = []
        /// Words a command takes first: `status` for auth, provider names for describe, shells for completions.
        var words: [String] = []
        /// Whether the command takes file names (browse).
        var takesFiles = false

        var isProvider: Bool { !operations.isEmpty }
        /// Every option of every operation, once (for shells that do not track the operation).
        var allOptions: [Option] {
            var seen = Set<String>()
            return (options + operations.flatMap(\.options)).filter { seen.insert($0.name).inserted }
        }
    }

    var entries: [Entry]

    /// The values `--sort` offers: the single-valued fields, each also descending, and `metrics.` to type a name after.
    static let sortValues: [String] = {
        let fields = Item.Field.allCases.filter { ![.location, .metrics, .tags, .extra].contains($0) }.map(\.rawValue) + ["metrics."]
        return fields.flatMap { [$0, "-" + $0] }
    }()

    /// The values `--fields` offers, one list element at a time.
    static let fieldValues: [String] = Item.Field.allCases.flatMap { field -> [String] in
        [field.rawValue] + (field.parts ?? []).map { "\(field.rawValue).\($0)" } + (field.hasOpenParts ? ["\(field.rawValue)."] : [])
    }

    init(registry: ProviderRegistry, commands: [HelpText.Command]) {
        func option(_ spec: OptionSpec, command: String?) -> Option {
            var option = Option(name: spec.name, help: spec.help, takesValue: spec.arity != .flag)
            switch spec.name {
            case "format": option.values = command.map(Self.formats(forCommand:)) ?? OutputFormat.allCases.map(\.rawValue)
            case "sort": option.values = Self.sortValues
            case "fields":
                option.values = Self.fieldValues
                option.isList = true
            default: break
            }
            return option
        }
        var entries: [Entry] = []
        for provider in registry.providers {
            let descriptor = provider.descriptor
            let common = CommonOptions.specs.map { option($0, command: nil) }
            let operations = descriptor.operations.map { operation in
                let parameters = (descriptor.options + operation.parameters).filter { $0.style != .positional }.map { parameter in
                    var option = Option(name: parameter.name, help: parameter.help, takesValue: parameter.style != .flag)
                    switch parameter.type {
                    case .choice(let choices): option.values = choices
                    case .choiceList(let choices):
                        option.values = choices
                        option.isList = true
                    default: break
                    }
                    return option
                }
                return Operation(name: operation.name, summary: operation.summary, options: parameters + common)
            }
            // Commands the CLI adds under a provider's name (`twitter archive`) complete like its operations.
            let extra = LocalCommands.help(of: provider).map { command in
                Operation(
                    name: String(command.name.split(separator: " ").last ?? ""), summary: command.summary,
                    options: command.options.map { option($0, command: command.name) })
            }
            entries.append(Entry(name: descriptor.name, summary: descriptor.summary, operations: operations + extra))
        }
        for command in commands {
            var entry = Entry(name: command.name, summary: command.summary, options: command.options.map { option($0, command: command.name) })
            switch command.name {
            case "normalize": entry.words = registry.names
            case "describe", "help": entry.words = registry.names + (command.name == "help" ? commands.map(\.name) : [])
            case "auth": entry.words = ["status"] + registry.names
            case "config": entry.words = ["path", "show", "get", "set", "unset"]
            case "cache": entry.words = ["stats", "clear", "path"] + registry.names
            case "limits": entry.words = ["show", "reset"] + registry.names
            case "completions": entry.words = CompletionShell.allCases.map(\.rawValue)
            case "browse": entry.takesFiles = true
            default: break
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// The formats a command's `--format` accepts.
    static func formats(forCommand name: String) -> [String] {
        switch name {
        case "providers", "describe", "limits": return ["text", "json"]
        case "compare": return CompareCommand.formats
        default: return OutputFormat.allCases.map(\.rawValue)
        }
    }
}

/// The shells `aggregate completions` writes scripts for.
enum CompletionShell: String, CaseIterable, Sendable {
    case bash, zsh, fish
}

/// `aggregate completions bash|zsh|fish`: prints a completion script for the shell.
enum CompletionsCommand {
    static let command = HelpText.Command(
        name: "completions", summary: "Print a shell completion script (bash, zsh or fish).",
        usage: "aggregate completions bash|zsh|fish",
        arguments: [("<shell>", "bash, zsh or fish.")],
        options: [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")],
        discussion: """
            The script completes commands, provider names, operations, options and their fixed values (--api, \
            --format, --sort, --fields and every choice a provider declares). Install it with, for bash: \
            aggregate completions bash > ~/.local/share/bash-completion/completions/aggregate; zsh: \
            aggregate completions zsh > ~/.zfunc/_aggregate (with ~/.zfunc on fpath before compinit); fish: \
            aggregate completions fish > ~/.config/fish/completions/aggregate.fish.
            """)

    static func run(_ arguments: [String], context: Context) -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard parsed.positionals.count == 1, let shell = CompletionShell(rawValue: parsed.positionals[0]) else {
                throw AggregateError(.usage, "name one shell: bash, zsh or fish\(DidYouMean.suffix(for: parsed.positionals.first ?? "", among: CompletionShell.allCases.map(\.rawValue)))")
            }
            let model = CompletionModel(registry: context.registry, commands: App.commands)
            switch shell {
            case .bash: context.console.out(BashCompletion.script(model))
            case .zsh: context.console.out(ZshCompletion.script(model))
            case .fish: context.console.out(FishCompletion.script(model))
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
        }
    }
}

/// Quoting for the generated scripts.
enum ShellQuote {
    /// `text` in single quotes, safe in bash, zsh and fish.
    static func single(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `text` in single quotes for fish, which escapes a quote as `\'` inside single quotes.
    static func fish(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The first sentence of a help text, short enough for a completion menu.
    static func summary(_ text: String) -> String {
        let first = text.range(of: ". ").map { String(text[..<$0.lowerBound]) } ?? (text.hasSuffix(".") ? String(text.dropLast()) : text)
        return TextLayout.truncate(first.trimmingCharacters(in: .whitespaces), to: 70)
    }
}

// MARK: - bash

/// A bash script: `complete -F _aggregate aggregate`, with one `case` per provider and operation.
enum BashCompletion {
    static func script(_ model: CompletionModel) -> String {
        let topWords = model.entries.map(\.name) + ["--help", "--version"]
        var text = """
            # bash completion for aggregate, generated by 'aggregate completions bash'.
            # Completes commands, providers, operations, options and their fixed values.

            _aggregate_complete_value() {
                # $1: the candidates, $2: 1 when the value is a comma-separated list
                local cur="${COMP_WORDS[COMP_CWORD]}" prefix=""
                if [[ "$2" == 1 && "$cur" == *,* ]]; then
                    prefix="${cur%,*},"
                    cur="${cur##*,}"
                fi
                COMPREPLY=($(compgen -P "$prefix" -W "$1" -- "$cur"))
                if [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == *. ]]; then
                    compopt -o nospace 2>/dev/null
                fi
            }

            _aggregate() {
                local cur="${COMP_WORDS[COMP_CWORD]}"
                local prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W \(ShellQuote.single(topWords.joined(separator: " "))) -- "$cur"))
                    return
                fi
                local first="${COMP_WORDS[1]}" operation="" operations="" options="" words="" files=0
                case "$first" in

            """
        for entry in model.entries {
            text += "        \(entry.name))\n"
            if entry.isProvider {
                text += "            operations=\(ShellQuote.single(entry.operations.map(\.name).joined(separator: " ")))\n"
                text += "            case \"${COMP_WORDS[2]}\" in\n"
                for operation in entry.operations {
                    text += "                \(operation.name)) operation=\(operation.name) ;;\n"
                }
                text += "                *) operation=\(entry.operations[0].name) ;;\n"
                text += "            esac\n"
                text += "            case \"$operation\" in\n"
                for operation in entry.operations {
                    text += "                \(operation.name))\n"
                    text += "                    options=\(ShellQuote.single(operation.options.map { "--" + $0.name }.joined(separator: " ")))\n"
                    text += valueCases(operation.options, indent: "                    ")
                    text += "                    ;;\n"
                }
                text += "            esac\n"
            } else {
                text += "            options=\(ShellQuote.single(entry.options.map { "--" + $0.name }.joined(separator: " ")))\n"
                if !entry.words.isEmpty { text += "            words=\(ShellQuote.single(entry.words.joined(separator: " ")))\n" }
                if entry.takesFiles { text += "            files=1\n" }
                text += valueCases(entry.options, indent: "            ")
            }
            text += "            ;;\n"
        }
        text += """
                    *) return ;;
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$cur"))
                elif [[ $COMP_CWORD -eq 2 && -n "$operations" ]]; then
                    COMPREPLY=($(compgen -W "$operations $options" -- "$cur"))
                elif [[ -n "$words" ]]; then
                    COMPREPLY=($(compgen -W "$words" -- "$cur"))
                elif [[ $files == 1 ]]; then
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
            }

            complete -F _aggregate aggregate

            """
        return text
    }

    /// `case "$prev" in --api) ...; return ;; esac` for the options that take a value.
    private static func valueCases(_ options: [CompletionModel.Option], indent: String) -> String {
        let valued = options.filter(\.takesValue)
        guard !valued.isEmpty else { return "" }
        var text = "\(indent)case \"$prev\" in\n"
        for option in valued {
            if let values = option.values {
                text += "\(indent)    --\(option.name)) _aggregate_complete_value \(ShellQuote.single(values.joined(separator: " "))) \(option.isList ? 1 : 0); return ;;\n"
            } else {
                text += "\(indent)    --\(option.name)) COMPREPLY=(); return ;;\n"
            }
        }
        text += "\(indent)esac\n"
        return text
    }
}

// MARK: - zsh

/// A zsh script for `compinit`: `_arguments` per provider and command, with descriptions.
enum ZshCompletion {
    static func script(_ model: CompletionModel) -> String {
        var text = """
            #compdef aggregate
            # zsh completion for aggregate, generated by 'aggregate completions zsh'.

            _aggregate() {
              local -a entries
              entries=(

            """
        for entry in model.entries {
            text += "    \(ShellQuote.single("\(entry.name):\(describe(entry.summary))"))\n"
        }
        text += """
              )
              if (( CURRENT == 2 )); then
                _describe 'command or provider' entries
                return
              fi
              local first=$words[2]
              shift words
              (( CURRENT-- ))
              case $first in

            """
        for entry in model.entries {
            text += "    \(entry.name))\n      _arguments -s \\\n"
            for option in entry.allOptions {
                text += "        \(ShellQuote.single(spec(option))) \\\n"
            }
            if entry.isProvider {
                let operations = entry.operations.map { "\($0.name)\\:\(describe($0.summary).replacingOccurrences(of: " ", with: "\\ "))" }.joined(separator: " ")
                text += "        \(ShellQuote.single("1:operation:((\(operations)))")) \\\n"
                text += "        '*:argument: '\n"
            } else if !entry.words.isEmpty {
                text += "        \(ShellQuote.single("1:argument:(\(entry.words.joined(separator: " ")))")) \\\n"
                text += "        '*:argument: '\n"
            } else if entry.takesFiles {
                text += "        '*:file:_files'\n"
            } else {
                text += "        '*:argument: '\n"
            }
            text += "      ;;\n"
        }
        text += """
              esac
            }

            if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
              _aggregate "$@"
            else
              compdef _aggregate aggregate
            fi

            """
        return text
    }

    /// Help text without the characters `_arguments` treats specially.
    private static func describe(_ text: String) -> String {
        ShellQuote.summary(text).map { "[]:\\'".contains($0) ? " " : String($0) }.joined()
    }

    private static func spec(_ option: CompletionModel.Option) -> String {
        let head = "--\(option.name)[\(describe(option.help))]"
        guard option.takesValue else { return head }
        let values = option.values.map { "(\($0.joined(separator: " ")))" } ?? " "
        return head + ":\(option.name):\(values)"
    }
}

// MARK: - fish

/// A fish script: one `complete` line per word, conditioned on the command or provider seen.
enum FishCompletion {
    static func script(_ model: CompletionModel) -> String {
        var lines = [
            "# fish completion for aggregate, generated by 'aggregate completions fish'.",
            "complete -c aggregate -f",
        ]
        let names = model.entries.map(\.name).joined(separator: " ")
        for entry in model.entries {
            lines.append("complete -c aggregate -n \(ShellQuote.fish("not __fish_seen_subcommand_from \(names)")) -a \(entry.name) -d \(ShellQuote.fish(ShellQuote.summary(entry.summary)))")
        }
        for entry in model.entries {
            let seen = ShellQuote.fish("__fish_seen_subcommand_from \(entry.name)")
            for operation in entry.operations {
                lines.append("complete -c aggregate -n \(seen) -a \(operation.name) -d \(ShellQuote.fish(ShellQuote.summary(operation.summary)))")
            }
            for word in entry.words {
                lines.append("complete -c aggregate -n \(seen) -a \(ShellQuote.fish(word))")
            }
            if entry.takesFiles { lines.append("complete -c aggregate -n \(seen) -F") }
            for option in entry.allOptions {
                var line = "complete -c aggregate -n \(seen) -l \(option.name)"
                if option.takesValue { line += " -x" }
                if let values = option.values { line += " -a \(ShellQuote.fish(values.joined(separator: " ")))" }
                lines.append(line + " -d \(ShellQuote.fish(ShellQuote.summary(option.help)))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
