import AggregateRendering
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// `aggregate compare --format html` through the built binary: one self-contained, valid HTML5 page.
@Suite struct CompareHTMLReportTests {
    static let invocations = [
        "meetup --lat 51.509980 --lon -0.133700 --offline", "kiva newest --offline", "tmdb search batman --offline",
        "twitter nasa --offline", "kiva newest --base-url http://127.0.0.1:9 --timeout 1",
    ]

    static let report: Result<Binary.Output, any Error> = Result { try Binary.run(["compare"] + invocations + ["--format", "html", "--limit", "4"]) }

    @Test func holdsCardsChartsHeatMapItemsAndTheFailure() throws {
        let output = try Self.report.get()
        #expect(output.status == 3, "some invocations failed")
        #expect(output.stderr.hasSuffix("Error: kiva: cannot connect to 127.0.0.1:9: connection refused (after 4 attempts)\n"))
        let html = output.stdout
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.components(separatedBy: "<article class=\"card ok\">").count - 1 == 4)
        #expect(html.components(separatedBy: "<article class=\"card failed\">").count - 1 == 1)
        #expect(html.contains("<p class=\"error\" role=\"alert\">Error: kiva: cannot connect to 127.0.0.1:9: connection refused (after 4 attempts)</p>"))
        for fact in ["<dt>items</dt><dd>4</dd>", "<dt>requests</dt>", "<dt>pages</dt>", "<dt>received</dt>", "<dt>time</dt>", "<dt>auth</dt>", "<dt>pagination</dt>"] {
            #expect(html.contains(fact), "\(fact)")
        }
        #expect(html.components(separatedBy: "<svg ").count - 1 == 2, "a chart of time and one of bytes")
        #expect(html.components(separatedBy: "class=\"bar-time\"").count - 1 == Self.invocations.count)
        #expect(html.components(separatedBy: "class=\"bar-bytes\"").count - 1 == Self.invocations.count)
        for field in ComparisonRow.coverageFields { #expect(html.contains("<tr><th scope=\"row\">\(field)</th>")) }
        #expect(html.contains("<td class=\"h4\">100%</td>") && html.contains("<td class=\"h0\">0%</td>"))
        #expect(html.contains("<a href=\"https://www.kiva.org/lend/2950117\">Aisha</a>"))
        #expect(html.contains("<a class=\"image\" href=\"https://"), "images are links")
        #expect(html.contains("@media (prefers-color-scheme: dark)"))
    }

    /// The report compares invocations; one provider command (or normalize) asking for it is pointed at compare.
    @Test(arguments: [["tmdb", "popular", "--offline"], ["kiva", "--offline"], ["normalize", "tmdb", "-"]])
    func aProviderCommandPointsHTMLAtCompare(_ arguments: [String]) throws {
        let output = try Binary.run(arguments + ["--format", "html"], stdin: "{}")
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        let lines = output.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix(": --format html is for compare, whose report sets invocations side by side (aggregate compare '<invocation>'... --format html); here use one of text, json, ndjson, csv, markdown") == true, "\(output.stderr)")
        #expect(lines.count == 3 && lines[1].hasPrefix("Usage: aggregate "), "one usage line: \(output.stderr)")
    }

    @Test func isSelfContained() throws {
        let html = try Self.report.get().stdout.lowercased()
        for reference in ["<script", "<link", "<img", "<iframe", "<object", "<embed", "src=", "url(", "@import", "srcset"] {
            #expect(!html.contains(reference), "\(reference) would load something")
        }
        // Links are the only URLs, and only the items' own http(s) links.
        let hrefs = html.components(separatedBy: "href=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(!hrefs.isEmpty)
        #expect(hrefs.allSatisfy { $0.hasPrefix("https://") || $0.hasPrefix("http://") })
    }

    @Test func escapesTextAndRefusesNonHTTPLinks() {
        #expect(CompareHTMLReport.escape("<b a=\"1\">'&'</b>") == "&lt;b a=&quot;1&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;")
        #expect(CompareHTMLReport.safeLink("javascript:alert(1)") == nil)
        #expect(CompareHTMLReport.safeLink("https://x.test/?a=1&b=\"") == "https://x.test/?a=1&amp;b=&quot;")
    }

    /// WCAG 2 contrast of two `#rrggbb` colours.
    static func contrast(_ a: String, _ b: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16)!
            let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { channel -> Double in
                let c = Double(channel) / 255
                return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
        }
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func lightAndDarkColoursHaveAccessibleContrast() throws {
        let style = CompareHTMLReport.style
        let blocks = style.components(separatedBy: ":root {").dropFirst().map { String($0.prefix { $0 != "}" }) }
        #expect(blocks.count == 2, "a light and a dark palette")
        for block in blocks {
            var colours: [String: String] = [:]
            for declaration in block.split(separator: ";") {
                let parts = declaration.split(separator: ":").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                if parts.count == 2, parts[0].hasPrefix("--") { colours[String(parts[0].dropFirst(2))] = parts[1] }
            }
            var text = [("fg", "bg"), ("muted", "bg"), ("fg", "card"), ("muted", "card"), ("ok", "card"), ("failed", "card"), ("link", "bg")]
            text += (0...4).map { ("h\($0)-fg", "h\($0)") }
            for (foreground, background) in text {
                let ratio = Self.contrast(try #require(colours[foreground]), try #require(colours[background]))
                #expect(ratio >= 4.5, "\(foreground) on \(background): \(ratio)")
            }
            for bar in ["time", "bytes"] {
                #expect(Self.contrast(try #require(colours[bar]), try #require(colours["bg"])) >= 3, "\(bar) bars")
            }
        }
    }

    @Test(.requires(.html5lib)) func isValidHTML5() throws {
        let problems = try HTML5Validation.problems(in: try Self.report.get().stdout)
        #expect(problems == nil, "\(problems ?? "")")
    }
}
