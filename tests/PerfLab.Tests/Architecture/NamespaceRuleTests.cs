using System.Text.RegularExpressions;
using PerfLab.Common;

namespace PerfLab.Tests.Architecture;

/// <summary>Namespace = folder in src/: PerfLab/Load/Models/ClosedRunner.cs is in PerfLab.Load.Models, so the layer test's folders are the real ones.</summary>
public sealed partial class NamespaceRuleTests
{
    [Fact]
    public void Sources_InSrc_DeclareTheNamespaceOfTheirFolder()
    {
        var src = Path.Combine(PerfLabPaths.RepoRoot, "src");
        var wrong = new List<string>();
        var checkedFiles = 0;
        foreach (var relative in Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(src, path).Replace('\\', '/'))
            .Where(relative => !relative.Split('/').Any(part => part is "bin" or "obj" or "node_modules"))
            .Order(StringComparer.Ordinal))
        {
            checkedFiles++;
            var declared = NamespaceOf(File.ReadAllText(Path.Combine(src, relative)));
            var expected = Expected(relative);
            // Only a project's Program.cs (top-level statements) may have none.
            if (declared != expected && !(declared is null && relative.EndsWith("/Program.cs", StringComparison.Ordinal)))
            {
                wrong.Add($"{relative}: namespace {declared ?? "(none)"}, expected {expected}");
            }
        }

        Assert.True(checkedFiles > 100, $"only {checkedFiles} files read from {src}");
        Assert.True(wrong.Count == 0, $"{wrong.Count} files outside their folder's namespace:\n{string.Join('\n', wrong)}");
    }

    [Theory]
    [InlineData("PerfLab/Load/Models/ClosedRunner.cs", "PerfLab.Load.Models")]
    [InlineData("PerfLab.Sut/Orders/OrdersApi.cs", "PerfLab.Sut.Orders")]
    [InlineData("PerfLab/Program.cs", "PerfLab")]
    public void Expected_FilePath_ProjectFolderThenSubFolders(string relative, string expected) =>
        Assert.Equal(expected, Expected(relative));

    [Theory]
    [InlineData("using System;\n\nnamespace PerfLab.Load;\n\nclass C;\n", "PerfLab.Load")]
    [InlineData("namespace PerfLab.Load\n{\n    class C { }\n}\n", "PerfLab.Load")]
    [InlineData("// namespace PerfLab.Wrong;\nConsole.WriteLine();\n", null)]
    public void NamespaceOf_FileScopedOrBlock_ReadsTheDeclaration(string text, string? expected) =>
        Assert.Equal(expected, NamespaceOf(text));

    // The project folder is the root namespace (PerfLab, PerfLab.Sut); each folder below it adds a part.
    private static string Expected(string relative) => string.Join('.', relative.Split('/')[..^1]);

    private static string? NamespaceOf(string text) => Declaration().Match(text) is { Success: true } m ? m.Groups[1].Value : null;

    [GeneratedRegex(@"^namespace\s+([\w.]+)", RegexOptions.Multiline)]
    private static partial Regex Declaration();
}
