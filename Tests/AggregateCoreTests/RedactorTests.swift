import AggregateCore
import Foundation
import Testing

@Suite struct RedactorTests {
    @Test func hidesKnownSecretsAndTheirEncodedForms() {
        let redactor = Redactor(secrets: ["s3cr3t+key/=="])
        let text = "GET /x?key=s3cr3t%2Bkey%2F%3D%3D and body s3cr3t+key/=="
        let redacted = redactor.redact(text)
        #expect(!redacted.contains("s3cr3t"))
        #expect(redacted.contains("***"))
    }

    @Test func hidesConventionalCredentialParametersEvenWhenUnknown() {
        let redacted = Redactor().redact("https://api.meetup.com/2/groups?lat=1&key=abcdef123&sig=zzz&token=t0k&offset=2")
        #expect(redacted == "https://api.meetup.com/2/groups?lat=1&key=***&sig=***&token=***&offset=2")
        #expect(Redactor().redact("monkey=banana") == "monkey=banana")
        #expect(Redactor().redact("api_key=abc") == "api_key=***")
    }

    @Test func hidesBearerTokens() {
        #expect(Redactor().redact("Authorization: Bearer eyJhbGciOi.x.y") == "Authorization: Bearer ***")
        #expect(Redactor().redact("(sent as Bearer AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2Buk%3DEUif)") == "(sent as Bearer ***)")
        #expect(Redactor().redact("the bearer token was rejected (HTTP 401)") == "the bearer token was rejected (HTTP 401)")
        #expect(Redactor().redact("Bearer abcdefgh1234)") == "Bearer ***)")
        #expect(Redactor().redactHeader(name: "authorization", value: "Bearer abc") == "Bearer ***")
        #expect(Redactor().redactHeader(name: "Accept", value: "application/json") == "application/json")
    }

    @Test func ignoresTooShortSecrets() {
        #expect(Redactor(secrets: ["a", ""]).redact("a cat") == "a cat")
    }
}
