import AggregateCore
import Foundation

/// The commands providers add under their names (``LocalCommand``, e.g. `aggregate twitter archive`): their help,
/// dispatch and rendering, for every provider alike. The executable imports no provider to offer them.
enum LocalCommands {
    /// The options the command line adds to every local command, after its own.
    static let commonOptions = CommonOptions.specs.filter { ["format", "quiet", "color", "no-pager", "help"].contains($0.name) }

    /// The help of `provider`'s local commands, named `<provider> <command>`.
    static func help(of provider: any RunnableProvider) -> [HelpText.Command] {
        provider.localCommands.map { help($0, provider: provider.descriptor.name) }
    }

    static func help(_ command: LocalCommand, provider: String) -> HelpText.Command {
        HelpText.Command(
            name: "\(provider) \(command.name)", summary: command.summary, usage: command.usage,
            arguments: command.arguments.map { ($0.name, $0.help) }, options: command.options + commonOptions,
            discussion: command.discussion)
    }

    /// Runs `command` of `provider` with the arguments after its name.
    static func run(_ command: LocalCommand, of provider: any RunnableProvider, arguments: [String], context: Context) async -> ExitCode {
        let name = provider.descriptor.name
        let help = help(command, provider: name)
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try help.parse(arguments, context: context) else { return .success }
            let run = LocalCommandContext(
                arguments: parsed, outputIsTerminal: context.terminal.stdoutIsTerminal, write: { console.out($0) },
                writeBytes: { console.out(bytes: $0) },
                progress: { quiet in
                    let line = ProgressLine.forCommand(label: help.name, quiet: quiet || parsed.has("quiet"), context: context)
                    line.startTicking()
                    return line
                })
            switch try await command.run(run) {
            case .written:
                return .success
            case .result(let result):
                var common = CommonOptions()
                if let format = parsed.value("format") { common.format = try CommonOptions.format(from: format) }
                common.color = try ColorChoice(parsed)
                common.noPager = parsed.has(Pager.spec.name)
                let invocation = ProviderInvocation(
                    provider: provider, operation: provider.descriptor.defaultOperation, parameters: result.query, common: common)
                await Pager.paging(common.mayPage, context: context) { context in
                    ProviderCommand.render(result, invocation: invocation, context: context)
                }
                return .success
            }
        } catch {
            return Diagnostics.report(
                error.kind == .usage ? error : error.attributed(to: name), console: console, usage: error.kind == .usage ? help.usage : nil)
        }
    }
}

extension ProgressLine: LocalCommandProgress {
    func update(phase: String) { update(phase: phase, pages: nil, items: nil, bytes: nil) }
    func update(items: Int) { update(phase: nil, pages: nil, items: items, bytes: nil) }
}
