window.YTD.account.part0 = [
  {
    "account" : {
      "email" : null,
      "createdVia" : "web",
      "username" : "quaykeeper",
      "accountId" : "44100002",
      "createdAt" : "2009-06-30T07:52:16.000Z",
      "accountDisplayName" : "Quay Keeper"
    }
  }
]