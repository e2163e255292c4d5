using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Reports;

namespace PerfLab.Tests.Reports;

public sealed class ReportCommandTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-report-cmd-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public async Task Report_FolderWithResults_RerendersMarkdownAndHtml()
    {
        ReportWriters.WriteAll(ReportFixtures.Sample(), _dir.FullName, ReportWriters.ForFormats("json"));

        var result = await PerfLabProcess.RunAsync("report", _dir.FullName);

        Assert.Equal((int)ExitCode.Success, result.ExitCode);
        Assert.Equal(["report.html", "report.md", "results.json"], Directory.GetFiles(_dir.FullName).Select(Path.GetFileName).Order());
        // Re-rendered from results.json, the report is the one written from the graph itself.
        using var expected = new StringWriter();
        new MarkdownReportWriter().Write(ReportFixtures.Sample(), expected);
        Assert.Equal(expected.ToString(), await File.ReadAllTextAsync(Path.Combine(_dir.FullName, "report.md")));
        Assert.Contains(Path.Combine(_dir.FullName, "report.md"), result.Stdout);
    }

    [Fact]
    public async Task Report_FormatMdOnly_WritesOnlyMarkdown()
    {
        ReportWriters.WriteAll(ReportFixtures.Sample(), _dir.FullName, ReportWriters.ForFormats("json"));

        var code = await PerfLabCli.RunAsync(["report", _dir.FullName, "--format", "md"]);

        Assert.Equal((int)ExitCode.Success, code);
        Assert.Equal(["report.md", "results.json"], Directory.GetFiles(_dir.FullName).Select(Path.GetFileName).Order());
    }

    [Fact]
    public async Task Report_MissingFolder_ExitsWithUsageAndSaysSo()
    {
        var missing = Path.Combine(_dir.FullName, "nope");

        var result = await PerfLabProcess.RunAsync("report", missing);

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains($"error: '{missing}' does not exist", result.Stderr);
        Assert.DoesNotContain("   at ", result.Stderr);
    }

    [Fact]
    public async Task Report_FolderWithoutResults_ExitsWithUsageAndSaysSo()
    {
        var result = await PerfLabProcess.RunAsync("report", _dir.FullName);

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("has no results.json", result.Stderr);
    }

    [Fact]
    public async Task Report_ResultsOfAnotherSchemaVersion_ExitsWithUsageAndNamesIt()
    {
        var json = ResultsJson.Serialize(ReportFixtures.Sample()).Replace("\"schemaVersion\": 2", "\"schemaVersion\": 3", StringComparison.Ordinal);
        await File.WriteAllTextAsync(Path.Combine(_dir.FullName, "results.json"), json);

        var result = await PerfLabProcess.RunAsync("report", _dir.FullName);

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("has schema version 3, but this perflab reads schema versions 1 to 2", result.Stderr);
        Assert.False(File.Exists(Path.Combine(_dir.FullName, "report.md")));
    }

    [Fact]
    public async Task Report_UnknownFormat_ExitsWithUsage()
    {
        ReportWriters.WriteAll(ReportFixtures.Sample(), _dir.FullName, ReportWriters.ForFormats("json"));

        Assert.Equal((int)ExitCode.Usage, await PerfLabCli.RunAsync(["report", _dir.FullName, "--format", "pdf"]));
    }
}
