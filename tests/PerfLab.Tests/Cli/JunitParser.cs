using System.Diagnostics;
using System.Text.Json;

namespace PerfLab.Tests.Cli;

/// <summary>
/// Reads a JUnit XML file back with a real JUnit consumer: Debian's python3-junitparser (installed by `dotnet test` as root: scripts/setup.sh --for-tests),
/// run by the system Python it is packaged for, not whichever python3 comes first on PATH.
/// </summary>
internal static class JunitParser
{
    private const string Python = "/usr/bin/python3";

    private const string Script = """
        import json, sys
        from junitparser import JUnitXml, Failure, Skipped
        xml = JUnitXml.fromfile(sys.argv[1])
        suites = []
        for suite in xml:
            cases = []
            for case in suite:
                results = list(case.result)
                kind = "failure" if any(isinstance(r, Failure) for r in results) else "skipped" if any(isinstance(r, Skipped) for r in results) else "passed"
                cases.append({"name": case.name, "classname": case.classname, "kind": kind, "message": results[0].message if results else None, "out": case.system_out,
                              "time": case.time})
            suites.append({"name": suite.name, "tests": suite.tests, "failures": suite.failures, "skipped": suite.skipped,
                           "time": suite.time, "cases": cases})
        print(json.dumps(suites))
        """;

    public static async Task<JsonElement> ReadAsync(string path)
    {
        Assert.True(File.Exists(Python), $"{Python} is missing: `dotnet test` installs it as root (scripts/setup.sh --for-tests; python3-junitparser reads the JUnit files back).");
        var info = new ProcessStartInfo(Python) { RedirectStandardOutput = true, RedirectStandardError = true };
        info.ArgumentList.Add("-c");
        info.ArgumentList.Add(Script);
        info.ArgumentList.Add(path);
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await process.WaitForExitAsync(cts.Token);
        Assert.True(process.ExitCode == 0, $"junitparser could not read {path}: {await stderr} (install python3-junitparser: scripts/setup.sh --for-tests)");
        using var json = JsonDocument.Parse(await stdout);
        return json.RootElement.Clone();
    }

    public static JsonElement Suite(JsonElement suites, string name) =>
        suites.EnumerateArray().Single(s => s.GetProperty("name").GetString()!.EndsWith(": " + name, StringComparison.Ordinal));
}
