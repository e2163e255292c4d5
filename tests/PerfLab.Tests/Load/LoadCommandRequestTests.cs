using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

/// <summary>`perflab load` with a method, headers, a body and response checks, as a user would type it.</summary>
public sealed class LoadCommandRequestTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-load-request-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public async Task Load_PostBodyFileWithChecks_SendsTheFileAndCountsFailedChecks()
    {
        await using var server = await TestServer.StartAsync();
        var body = Path.Combine(_dir.FullName, "order.json");
        await File.WriteAllTextAsync(body, """{"customer": {id}}""");
        var output = Path.Combine(_dir.FullName, "result.json");

        var code = await PerfLabCli.RunAsync(["load", server.Url("/echo?status=201").ToString(), "-X", "post", "-H", "X-Tenant: t1",
            "--body-file", body, "--values", "5,6", "--expect-status", "201", "--expect-json", "$.customer=5",
            "-c", "2", "--requests", "20", "--json", "--out", output]);

        Assert.Equal((int)ExitCode.Success, code);
        var result = System.Text.Json.JsonSerializer.Deserialize<LoadResult>(await File.ReadAllTextAsync(output), LoadSummary.JsonOptions)!;
        var s = Assert.Single(result.Scenarios);
        Assert.Equal(20, s.Requests);
        // Values alternate 5, 6: the ten bodies with 6 fail the JSON check.
        Assert.Equal(10, s.Errors.Total);
        Assert.Equal(10, s.Errors.ByKind[ErrorCounts.CheckJsonKind]);
    }

    [Fact]
    public async Task Load_BodyWithoutMethod_PostsIt()
    {
        await using var server = await TestServer.StartAsync();

        var code = await PerfLabCli.RunAsync(["load", server.Url("/orders").ToString(), "--body", """{"a":1}""", "-c", "1", "--requests", "3", "--json"]);

        Assert.Equal((int)ExitCode.Success, code);
        Assert.Equal(3, server.Posted.Count(p => p.Body == """{"a":1}"""));
    }

    [Theory]
    [InlineData("p50<5ms", ExitCode.ThresholdsFailed)]
    [InlineData("p99<10s", ExitCode.Success)]
    [InlineData("errors<=0", ExitCode.Success)]
    public async Task Load_WithThresholdOnA20msEndpoint_ExitsByWhetherItHeld(string gate, ExitCode expected)
    {
        await using var server = await TestServer.StartAsync();

        var code = await PerfLabCli.RunAsync(["load", server.Url("/delay?ms=20").ToString(), "-c", "2", "--requests", "20", "--threshold", gate, "--json"]);

        Assert.Equal((int)expected, code);
    }

    [Fact]
    public async Task Load_ChangeThreshold_IsAUsageErrorSinceThereIsNoBaseline()
    {
        var result = await PerfLabProcess.RunAsync("load", "http://127.0.0.1:9/", "--threshold", "change>-5%", "--requests", "1");

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("compares against a baseline", result.Stderr);
    }

    [Theory]
    [InlineData("--expect-json", "$.items[x]", "JSON check '$.items[x]': an array index must be a whole number")]
    [InlineData("--expect-status", "2xy", "expected status '2xy' is not a status")]
    [InlineData("-H", "NoColon", "header 'NoColon' has no name")]
    [InlineData("-X", "GET POST", "'GET POST' is not an HTTP method")]
    [InlineData("--body-file", "/nonexistent/body.json", "body file '/nonexistent/body.json' does not exist")]
    public async Task Load_MalformedRequestOption_ExitsWithUsageNamingIt(string option, string value, string message)
    {
        var result = await PerfLabProcess.RunAsync("load", "http://127.0.0.1:9/", option, value, "--requests", "1");

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains(message, result.Stderr);
    }
}
