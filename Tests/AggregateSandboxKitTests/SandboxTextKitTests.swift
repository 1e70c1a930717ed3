import AggregateSandboxKit
import Testing

@Suite struct SandboxTextKitTests {
    @Test func foldingIgnoresCaseAndAccentsAndWidthOnlyWhenAsked() {
        #expect(SandboxText.fold("Léon CAFÉ Ångström") == "leon cafe angstrom")
        #expect(SandboxText.fold("ＡＢＣ") != "abc", "width is kept by default")
        #expect(SandboxText.fold("ＡＢＣ", widthInsensitive: true) == "abc")
    }

    @Test func wordsAreFoldedRunsOfLettersAndDigits() {
        #expect(SandboxText.words("The Amazing Spider-Man 2 (2014)") == ["the", "amazing", "spider", "man", "2", "2014"])
        #expect(SandboxText.words("  ¡Hola!, ¿qué tal?  ") == ["hola", "que", "tal"])
        #expect(SandboxText.words("夏の映画館") == ["夏の映画館"], "scripts without spaces stay one word")
        #expect(SandboxText.words("ＡＢＣ-def", widthInsensitive: true) == ["abc", "def"])
        #expect(SandboxText.words("--- !!!").isEmpty)
    }
}
