public import AggregateCore
import KivaProvider
import MeetupProvider
import MessageBoardProvider
import TMDbProvider
import TwitterProvider

/// Every provider, in the order `aggregate providers` lists them. Add a new provider's type here.
public let allProviders: [any Provider.Type] = [
    MeetupProvider.self,
    KivaProvider.self,
    TMDbProvider.self,
    TwitterProvider.self,
    MessageBoardProvider.self,
]
