public import AggregateCore
import KivaProvider
import MeetupProvider
import MessageBoardProvider
import TMDbProvider

/// Every provider, in the order `aggregate providers` lists them. Add a new provider's type here.
public let allProviders: [any Provider.Type] = [
    MeetupProvider.self,
    MessageBoardProvider.self,
    TMDbProvider.self,
    KivaProvider.self,
]
