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
        /// Whether the value is a comma-separated list (`--fields title,url`): each element is offered once.
        var isList = false
        /// Whether the value is a file name (`--provider-file`).
        var isFile = false
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

    /// Options every command line may hold anywhere, before the command too: `--provider-file FILE` (main.swift reads
    /// it before the registry exists).
    static let globalOptions = [Option(name: "provider-file", help: HelpText.providerFileHelp, takesValue: true, isFile: true)]

    /// The values `--sort` offers: the single-valued fields and `metrics.<name>` for each metric the provider
    /// declares (`metrics.` to type a name after when it declares none), each also descending.
    static func sortValues(metrics: [String]) -> [String] {
        let fields = Item.Field.allCases.filter { ![.location, .metrics, .tags, .extra].contains($0) }.map(\.rawValue)
        return (fields + metricValues(metrics)).flatMap { [$0, "-" + $0] }
    }

    /// The values `--fields` offers, one list element at a time, with the provider's declared metrics.
    static func fieldValues(metrics: [String]) -> [String] {
        Item.Field.allCases.flatMap { field -> [String] in
            let parts = field == .metrics ? metricValues(metrics) : (field.parts ?? []).map { "\(field.rawValue).\($0)" } + (field.hasOpenParts ? ["\(field.rawValue)."] : [])
            return [field.rawValue] + parts
        }
    }

    /// `metrics.stars` for each declared metric, or `metrics.` to type a name after.
    private static func metricValues(_ metrics: [String]) -> [String] {
        metrics.isEmpty ? ["metrics."] : metrics.map { "metrics.\($0)" }
    }

    /// A provider option named like a common one (GitHub's `--sort stars|forks|updated`, the API's order) takes the
    /// words it declares, and any other value keeps the common meaning (``ProviderInvocation/parse``): one option
    /// that offers both, the provider's words first, with the provider's help.
    static func merged(_ parameters: [Option], common: [Option]) -> [Option] {
        var options = parameters
        for option in common {
            guard let index = options.firstIndex(where: { $0.name == option.name }) else {
                options.append(option)
                continue
            }
            if let words = options[index].values, let more = option.values {
                options[index].values = words + more.filter { !words.contains($0) }
            } else {
                options[index].values = nil
            }
        }
        return options
    }

    init(registry: ProviderRegistry, commands: [HelpText.Command]) {
        func option(_ spec: OptionSpec, command: String?, metrics: [String] = []) -> Option {
            var option = Option(name: spec.name, help: spec.help, takesValue: spec.arity != .flag)
            switch spec.name {
            case "format": option.values = command.map(Self.formats(forCommand:)) ?? OutputFormat.allCases.map(\.rawValue)
            case "sort": option.values = Self.sortValues(metrics: metrics)
            case "fields":
                option.values = Self.fieldValues(metrics: metrics)
                option.isList = true
            case CommonOptions.toSpec.name: option.isFile = true
            default: break
            }
            return option
        }
        var entries: [Entry] = []
        for provider in registry.providers {
            let descriptor = provider.descriptor
            let common = CommonOptions.specs.map { option($0, command: nil, metrics: descriptor.metrics) }
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
                return Operation(name: operation.name, summary: operation.summary, options: Self.merged(parameters, common: common))
            }
            // Commands the CLI adds under a provider's name (`twitter archive`) complete like its operations.
            let extra = LocalCommands.help(of: provider).map { command in
                Operation(
                    name: String(command.name.split(separator: " ").last ?? ""), summary: command.summary,
                    options: command.options.map { option($0, command: command.name, metrics: descriptor.metrics) })
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
            case "import": entry.words = ImportCommand.sources.map { $0.command.name }
            case "browse", "check": entry.takesFiles = true
            case "sql":
                // `sql --describe TABLE` offers the tables; `--db FILE` takes a file name.
                for index in entry.options.indices {
                    if entry.options[index].name == "describe" { entry.options[index].values = InfoCommands.sqlTableNames(registry: registry) }
                    if entry.options[index].name == "db" { entry.options[index].isFile = true }
                }
            default: break
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// The formats a command's `--format` accepts.
    static func formats(forCommand name: String) -> [String] {
        switch name {
        case "providers", "describe", "limits", "check": return ["text", "json"]
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
            --format, --sort with the local sort fields and the provider's metrics, --fields one list element at a \
            time, and every choice a provider declares), and file names after --provider-file and --to. Install it with, for bash: \
            aggregate completions bash > ~/.local/share/bash-completion/completions/aggregate; zsh: \
            aggregate completions zsh > ~/.zfunc/_aggregate (with ~/.zfunc on fpath before compinit); fish: \
            aggregate completions fish > ~/.config/fish/completions/aggregate.fish.
            """)

    static func run(_ arguments: [String], context: Context) -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard parsed.positionals.count == 1 else { throw AggregateError(.usage, "name one shell: bash, zsh or fish") }
            guard let shell = CompletionShell(rawValue: parsed.positionals[0]) else {
                let suggestion = DidYouMean.suffix(for: parsed.positionals[0], among: CompletionShell.allCases.map(\.rawValue))
                throw AggregateError(.usage, "\(parsed.positionals[0]) is not supported: use bash, zsh or fish\(suggestion)")
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
        let globals = CompletionModel.globalOptions
        let topWords = model.entries.map(\.name) + ["--help", "--version"] + globals.map { "--" + $0.name }
        // The global options that take a file name, and their pairs with it, as a bash case pattern.
        let fileOptions = globals.filter(\.isFile).map { "--" + $0.name }.joined(separator: "|")
        var text = """
            # bash completion for aggregate, generated by 'aggregate completions bash'.
            # Completes commands, providers, operations, options and their fixed values.

            _aggregate_complete_value() {
                # $1: the candidates, $2: 1 when the value is a comma-separated list (each element offered once)
                local cur="${COMP_WORDS[COMP_CWORD]}" prefix="" candidates="$1" word
                if [[ "$2" == 1 && "$cur" == *,* ]]; then
                    prefix="${cur%,*},"
                    cur="${cur##*,}"
                    candidates=""
                    for word in $1; do
                        [[ ",$prefix" == *",$word,"* ]] || candidates+=" $word"
                    done
                fi
                COMPREPLY=($(compgen -P "$prefix" -W "$candidates" -- "$cur"))
                if [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == *. ]]; then
                    compopt -o nospace 2>/dev/null
                fi
            }

            _aggregate() {
                local cur="${COMP_WORDS[COMP_CWORD]}"
                local prev="${COMP_WORDS[COMP_CWORD-1]}"
                # \(fileOptions) FILE may come anywhere, as aggregate reads it before the command: a file name
                # after it, and the words below without those pairs.
                case "$prev" in
                    \(fileOptions))
                        compopt -o filenames 2>/dev/null
                        COMPREPLY=($(compgen -f -- "$cur"))
                        return ;;
                esac
                local -a args=("${COMP_WORDS[0]}")
                local i
                for ((i = 1; i < COMP_CWORD; i++)); do
                    case "${COMP_WORDS[i]}" in
                        \(fileOptions)) ((i++)) ;;
                        \(globals.filter(\.isFile).map { "--" + $0.name + "=*" }.joined(separator: "|"))) ;;
                        *) args+=("${COMP_WORDS[i]}") ;;
                    esac
                done
                local cword=${#args[@]}
                args+=("$cur")
                if [[ $cword -eq 1 ]]; then
                    COMPREPLY=($(compgen -W \(ShellQuote.single(topWords.joined(separator: " "))) -- "$cur"))
                    return
                fi
                local first="${args[1]}" operation="" operations="" options="" words="" files=0
                case "$first" in

            """
        for entry in model.entries {
            text += "        \(entry.name))\n"
            if entry.isProvider {
                text += "            operations=\(ShellQuote.single(entry.operations.map(\.name).joined(separator: " ")))\n"
                text += "            case \"${args[2]}\" in\n"
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
                elif [[ $cword -eq 2 && -n "$operations" ]]; then
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
            if option.isFile {
                text += "\(indent)    --\(option.name)) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
            } else if let values = option.values {
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
            text += "    \(ShellQuote.single("\(describeName(entry.name)):\(ShellQuote.summary(entry.summary))"))\n"
        }
        let globals = CompletionModel.globalOptions
        let fileOptions = globals.filter(\.isFile).map { "--" + $0.name }
        text += "  )\n  local -a globals\n  globals=(\n"
        for option in [("--help", "Show help information."), ("--version", "Show the version.")] + globals.map({ ("--" + $0.name, $0.help) }) {
            text += "    \(ShellQuote.single("\(describeName(option.0)):\(ShellQuote.summary(option.1))"))\n"
        }
        text += """
              )
              # \(fileOptions.joined(separator: ", ")) FILE may come anywhere, as aggregate reads it before the command: a file
              # name after it, and the words below without those pairs.
              local -a fileopts
              fileopts=(\(fileOptions.joined(separator: " ")))
              if (( ${fileopts[(Ie)${words[CURRENT-1]}]} )); then
                _files
                return
              fi
              local -i i=2
              while (( i < CURRENT )); do
                if (( ${fileopts[(Ie)${words[i]}]} )); then
                  words[i,i+1]=()
                  (( CURRENT -= 2 ))
                else
                  (( i++ ))
                fi
              done
              if (( CURRENT == 2 )); then
                _describe 'command or provider' entries -- globals
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
                let operations = entry.operations.map { "\($0.name)\\:\(actionDescription($0.summary))" }.joined(separator: " ")
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

    /// A name for `_describe` (`name:description`): its colons escaped, since the first plain one ends the name.
    private static func describeName(_ name: String) -> String {
        name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
    }

    /// Help text for an option's `[explanation]`: brackets and backslashes escaped; colons may stay, as
    /// `_arguments` reads the explanation to its closing bracket.
    private static func explanation(_ text: String) -> String {
        ShellQuote.summary(text).reduce(into: "") { escaped, character in
            if "[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
    }

    /// A description inside an `((value\:description ...))` action, which zsh evaluates as words: every ASCII
    /// character that is not a letter or digit is escaped with a backslash (spaces, colons, parentheses, quotes).
    private static func actionDescription(_ text: String) -> String {
        ShellQuote.summary(text).reduce(into: "") { escaped, character in
            if character.isASCII, !character.isLetter, !character.isNumber { escaped.append("\\") }
            escaped.append(character)
        }
    }

    private static func spec(_ option: CompletionModel.Option) -> String {
        let head = "--\(option.name)[\(explanation(option.help))]"
        guard option.takesValue else { return head }
        let action: String
        if option.isFile {
            action = "_files"
        } else if let values = option.values {
            // A list completes one element at a time, each once (`_values -s ,`); a single value from the words.
            action = option.isList ? "_values -s , \(option.name) \(values.joined(separator: " "))" : "(\(values.joined(separator: " ")))"
        } else {
            action = " "
        }
        return head + ":\(option.name):\(action)"
    }
}

// MARK: - fish

/// A fish script: one `complete` line per word, conditioned on the command or provider seen.
enum FishCompletion {
    static func script(_ model: CompletionModel) -> String {
        var lines = [
            "# fish completion for aggregate, generated by 'aggregate completions fish'.",
            "complete -c aggregate -f",
            "",
            "# The next element of a comma-separated list (--fields title,url): the candidates in $argv not in it yet.",
            "function __aggregate_list",
            "    set -l token (commandline -ct)",
            "    set -l prefix (string match -r -- '^(?:.*=)?(.*,)?' $token)[2]",
            "    set -l chosen (string split -- , $prefix)",
            "    for value in $argv",
            "        contains -- $value $chosen; or printf '%s%s\\n' $prefix $value",
            "    end",
            "end",
            "",
        ]
        // Global options hold anywhere on the line, before the command too.
        for option in CompletionModel.globalOptions {
            lines.append("complete -c aggregate -l \(option.name)\(option.isFile ? " -r -F" : "") -d \(ShellQuote.fish(ShellQuote.summary(option.help)))")
        }
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
                if option.takesValue { line += option.isFile ? " -r -F" : " -x" }
                if let values = option.values {
                    let words = values.joined(separator: " ")
                    line += " -a \(ShellQuote.fish(option.isList ? "(__aggregate_list \(words))" : words))"
                }
                lines.append(line + " -d \(ShellQuote.fish(ShellQuote.summary(option.help)))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
