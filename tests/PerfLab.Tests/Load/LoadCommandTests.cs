using PerfLab.Cli;
using PerfLab.Common;

namespace PerfLab.Tests.Load;

public sealed class LoadCommandTests
{
    [Theory]
    [InlineData("--connections", "0")]
    [InlineData("--connections", "-3")]
    [InlineData("--rate", "0")]
    [InlineData("--rate", "-5")]
    [InlineData("--duration", "0s")]
    [InlineData("--duration", "-1s")]
    [InlineData("--duration", "soon")]
    [InlineData("--duration", "200h")]
    [InlineData("--requests", "0")]
    [InlineData("--timeout", "0ms")]
    [InlineData("--burst-size", "0")]
    public void Parse_BadValue_IsAUsageErrorNamingTheOption(string option, string value)
    {
        var parse = PerfLabCli.CreateRoot().Parse(["load", "http://127.0.0.1:5000/", option, value]);
        var error = Assert.Single(parse.Errors);
        Assert.Contains(option, error.Message);
    }

    [Theory]
    [InlineData("not a url")]
    [InlineData("ftp://127.0.0.1/")]
    [InlineData("/relative/path")]
    public async Task RunAsync_MalformedUrl_ExitsWithUsage(string url)
    {
        Assert.Equal((int)ExitCode.Usage, await PerfLabCli.RunAsync(["load", url, "-d", "1s"]));
    }

    [Fact]
    public async Task RunAsync_RemoteTargetWithoutAllowRemote_ExitsWithUsage()
    {
        Assert.Equal((int)ExitCode.Usage, await PerfLabCli.RunAsync(["load", "http://192.0.2.10/", "-d", "1s"]));
    }

    [Fact]
    public async Task RunAsync_AgainstRealServer_SucceedsAndWritesJson()
    {
        await using var server = await TestServer.StartAsync();
        var file = Path.Combine(Path.GetTempPath(), $"perflab-load-{Guid.NewGuid():N}.json");
        try
        {
            var code = await PerfLabCli.RunAsync(["load", server.Url("/fast").ToString(), "-c", "2", "--requests", "50", "--json", "--out", file]);
            Assert.Equal((int)ExitCode.Success, code);
            var result = System.Text.Json.JsonSerializer.Deserialize<PerfLab.Load.LoadResult>(File.ReadAllText(file), PerfLab.Load.LoadSummary.JsonOptions)!;
            Assert.Equal(50, result.Scenarios[0].Requests);
            Assert.Equal(50, server.Requests);
        }
        finally
        {
            File.Delete(file);
        }
    }
}
