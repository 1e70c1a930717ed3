window.__THAR_CONFIG = {
  "userInfo" : {
    "accountId" : "44100002",
    "userName" : "quaykeeper",
    "displayName" : "Quay Keeper"
  },
  "archiveInfo" : {
    "sizeBytes" : "48213",
    "generationDate" : "2024-11-16T11:33:22.222Z",
    "isPartialArchive" : false,
    "maxPartSizeBytes" : "53687091200"
  },
  "readmeInfo" : {
    "fileName" : "data/README.txt",
    "directory" : "data/",
    "name" : "README.txt"
  },
  "dataTypes" : {
    "account" : {
      "files" : [
        {
          "fileName" : "data/account.js",
          "globalName" : "YTD.account.part0",
          "count" : "1"
        }
      ]
    },
    "like" : {
      "files" : [
        {
          "fileName" : "data/like.js",
          "globalName" : "YTD.like.part0",
          "count" : "0"
        }
      ]
    },
    "noteTweet" : {
      "files" : [
        {
          "fileName" : "data/note-tweet.js",
          "globalName" : "YTD.note_tweet.part0",
          "count" : "1"
        }
      ]
    },
    "tweets" : {
      "mediaDirectory" : "data/tweets_media",
      "files" : [
        {
          "fileName" : "data/tweets.js",
          "globalName" : "YTD.tweets.part0",
          "count" : "4"
        },
        {
          "fileName" : "data/tweets-part1.js",
          "globalName" : "YTD.tweets.part1",
          "count" : "2"
        }
      ]
    },
    "tweetsMedia" : {
      "mediaDirectory" : "data/tweets_media"
    }
  }
}