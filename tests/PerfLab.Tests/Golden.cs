using System.Runtime.CompilerServices;

namespace PerfLab.Tests;

// Golden files live in Golden/ beside the calling test's source file. PERFLAB_UPDATE_GOLDEN=1 rewrites them from the actual output;
// otherwise a mismatch fails with the first differing line and leaves the actual output next to the test binaries.
internal static class Golden
{
    public static void AssertMatches(string name, string actual, [CallerFilePath] string callerFile = "")
    {
        var goldenDir = Path.Combine(Path.GetDirectoryName(callerFile)!, "Golden");
        var goldenPath = Path.Combine(goldenDir, name);
        if (Environment.GetEnvironmentVariable("PERFLAB_UPDATE_GOLDEN") == "1")
        {
            Directory.CreateDirectory(goldenDir);
            File.WriteAllText(goldenPath, actual);
            return;
        }

        var actualPath = Path.Combine(AppContext.BaseDirectory, "TestResults", "golden-actual", name);
        Directory.CreateDirectory(Path.GetDirectoryName(actualPath)!);
        File.WriteAllText(actualPath, actual);
        var hint = $"Compare with: diff {goldenPath} {actualPath}\n" +
                   $"If the change is intended, rewrite the golden files: PERFLAB_UPDATE_GOLDEN=1 dotnet test tests/PerfLab.Tests --filter FullyQualifiedName~{Path.GetFileNameWithoutExtension(callerFile)}";
        if (!File.Exists(goldenPath))
        {
            Assert.Fail($"golden file {goldenPath} is missing.\n{hint}");
        }

        var expected = File.ReadAllText(goldenPath);
        if (expected == actual)
        {
            return;
        }
        var expectedLines = expected.Split('\n');
        var actualLines = actual.Split('\n');
        var line = 0;
        while (line < expectedLines.Length && line < actualLines.Length && expectedLines[line] == actualLines[line])
        {
            line++;
        }
        Assert.Fail($"{name} differs from its golden file at line {line + 1}:\n" +
                    $"  expected: {(line < expectedLines.Length ? expectedLines[line] : "<end of file>")}\n" +
                    $"  actual:   {(line < actualLines.Length ? actualLines[line] : "<end of file>")}\n{hint}");
    }
}
