Grailbird.data.tweets_2016_01 = 
 [ {
    "source" : "web",
    "entities" : {
      "user_mentions" : [],
      "media" : [],
      "hashtags" : [],
      "urls" : []
    },
    "geo" : {},
    "id_str" : "164570129890410499",
    "text" : "Grailbird era post with an id above 2^53",
    "id" : 164570129890410499,
    "created_at" : "2016-01-31 22:27:01 +0000",
    "user" : {
      "name" : "Quay Keeper",
      "screen_name" : "quaykeeper",
      "protected" : false,
      "id_str" : "44100002",
      "profile_image_url_https" : "https://example.invalid/a.png",
      "id" : 44100002,
      "verified" : false
    }
  },
  {
    "source" : "web",
    "entities" : {
      "user_mentions" : [
        {
          "name" : "Tide Watch",
          "screen_name" : "tidewatch",
          "indices" : [
            3,
            13
          ],
          "id_str" : "77",
          "id" : 77
        }
      ],
      "media" : [],
      "hashtags" : [],
      "urls" : []
    },
    "geo" : {},
    "id_str" : "164560889234735104",
    "text" : "RT @tidewatch: storm warning",
    "id" : 164560889234735104,
    "created_at" : "Wed Feb 01 04:09:00 +0000 2012",
    "retweeted_status" : {
      "id_str" : "164500000000000000",
      "id" : 164500000000000000,
      "text" : "storm warning",
      "created_at" : "Wed Feb 01 03:00:00 +0000 2012",
      "user" : {
        "name" : "Tide Watch",
        "screen_name" : "tidewatch",
        "protected" : false,
        "id_str" : "77",
        "id" : 77,
        "verified" : false
      },
      "entities" : {
        "user_mentions" : [],
        "media" : [],
        "hashtags" : [],
        "urls" : []
      },
      "geo" : {}
    },
    "user" : {
      "name" : "Quay Keeper",
      "screen_name" : "quaykeeper",
      "protected" : false,
      "id_str" : "44100002",
      "id" : 44100002,
      "verified" : false
    }
  }
]