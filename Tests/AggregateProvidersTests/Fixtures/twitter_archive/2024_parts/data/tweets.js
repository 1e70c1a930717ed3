window.YTD.tweets.part0 = [
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
        "56"
      ],
      "favorite_count" : "0",
      "id_str" : "1855000000000000001",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1855000000000000001",
      "created_at" : "Sat Nov 09 12:14:18 +0000 2024",
      "favorited" : false,
      "full_text" : "RT @tidewatch: Spring tide tonight, mind the lower quay…",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "initial" : {
          "editTweetIds" : [
            "1767400000000000002",
            "1767400000000000009"
          ],
          "editableUntil" : "2024-03-11T18:30:00.000Z",
          "editsRemaining" : "4",
          "isEditEligible" : true
        }
      },
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
        "36"
      ],
      "favorite_count" : "3",
      "id_str" : "1767400000000000002",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1767400000000000002",
      "created_at" : "Mon Mar 11 18:00:00 +0000 2024",
      "favorited" : false,
      "full_text" : "Ferry timetable v1 &amp; v2 compared",
      "lang" : "en"
    }
  },
  {
    "tweet" : {
      "edit_info" : {
        "edit" : {
          "initialTweetId" : "1767400000000000002",
          "editControlInitial" : {
            "editTweetIds" : [
              "1767400000000000002",
              "1767400000000000009"
            ],
            "editableUntil" : "2024-03-11T18:30:00.000Z",
            "editsRemaining" : "4",
            "isEditEligible" : true
          }
        }
      },
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
        "49"
      ],
      "favorite_count" : "12",
      "id_str" : "1767400000000000009",
      "truncated" : false,
      "retweet_count" : "2",
      "id" : "1767400000000000009",
      "created_at" : "Mon Mar 11 18:05:00 +0000 2024",
      "favorited" : false,
      "full_text" : "Ferry timetable v1 &amp; v2 compared (fixed link)",
      "lang" : "en"
    }
  },
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
        "102"
      ],
      "favorite_count" : "0",
      "id_str" : "1712800000000000003",
      "truncated" : false,
      "retweet_count" : "0",
      "id" : "1712800000000000003",
      "created_at" : "Fri Oct 13 14:58:50 +0000 2023",
      "favorited" : false,
      "full_text" : "A long harbour story begins here and goes on past the limit of one post so it is cut… https://t.co/abc",
      "lang" : "en"
    }
  }
]