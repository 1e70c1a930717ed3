public import AggregateCore
import KivaSandbox
import MeetupSandbox
import MessageBoardSandbox
import TMDbSandbox
import TwitterSandbox

/// Every provider's emulator, for the sandbox server and `--offline`. Apps that only fetch do not link these.
/// `RegistryTests` checks that it names one emulator per folder under `Providers/`.
public let allSandboxes: [any SandboxProviding.Type] = [
    MeetupSandbox.self,
    KivaSandbox.self,
    TMDbSandbox.self,
    TwitterSandbox.self,
    MessageBoardSandbox.self,
]
