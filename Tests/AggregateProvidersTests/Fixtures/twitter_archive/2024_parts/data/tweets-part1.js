window.YTD.tweets.part1 = [
  {
    "tweet" : {
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "39"
      ],
      "favorite_count" : "1",
      "id_str" : "1626900000000000004",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1626900000000000004",
      "created_at" : "Sat Feb 18 12:33:11 +0000 2023",
      "favorited" : false,
      "full_text" : "@harbourmaster thanks, the buoy is back",
      "lang" : "en",
      "in_reply_to_status_id_str" : "1626800000000000000",
      "in_reply_to_status_id" : "1626800000000000000",
      "in_reply_to_user_id" : "4410001",
      "in_reply_to_user_id_str" : "4410001",
      "in_reply_to_screen_name" : "harbourmaster"
    }
  },
  {
    "tweet" : {
      "retweeted" : false,
      "source" : "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
      "entities" : {
        "hashtags" : [
          {
            "text" : "retro",
            "indices" : [
              "0",
              "5"
            ]
          }
        ],
        "symbols" : [],
        "user_mentions" : [],
        "urls" : []
      },
      "display_text_range" : [
        "0",
        "34"
      ],
      "favorite_count" : "0",
      "id_str" : "9811245",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "9811245",
      "created_at" : "Tue Dec 05 10:00:00 +0000 2006",
      "favorited" : false,
      "full_text" : "first post from the old phone \ud83d",
      "lang" : "en"
    }
  }
]