public import AggregateCore
import MeetupProvider
import TwitterProvider

/// Every provider, in the order `aggregate providers` lists them. Add a new provider's type here.
public let allProviders: [any Provider.Type] = [
    MeetupProvider.self,
    TwitterProvider.self,
]
