window.YTD.note_tweet.part0 = [
  {
    "noteTweet" : {
      "noteTweetId" : "1712800000000000999",
      "updatedAt" : "2023-10-13T14:58:50.000Z",
      "lifecycle" : {
        "value" : "1",
        "name" : "Created",
        "originalName" : "Created",
        "annotations" : {}
      },
      "createdAt" : "2023-10-13T14:58:50.000Z",
      "core" : {
        "styletags" : [],
        "urls" : [],
        "text" : "A long harbour story begins here and goes on past the limit of one post so it is cut into two parts by the app, but the archive keeps it whole &amp; intact.",
        "mentions" : [],
        "cashtags" : [],
        "hashtags" : []
      }
    }
  }
]