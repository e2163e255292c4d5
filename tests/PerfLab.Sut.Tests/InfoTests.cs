using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

public sealed class InfoTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Fact]
    public async Task Info_ThreadPoolMinimums_ReportsTheAppliedValues()
    {
        await using var sut = await SutHost.StartAsync(await postgres.CreateDatabaseAsync(), new Dictionary<string, string>
        {
            ["ThreadPool:MinWorkerThreads"] = "70",
            ["ThreadPool:MinCompletionPortThreads"] = "70",
        });
        var info = await sut.InfoAsync();
        Assert.Equal(70, info.ThreadPool.MinWorkerThreads);
        Assert.Equal(70, info.ThreadPool.MinCompletionPortThreads);
        Assert.Equal(sut.Process.Pid, info.ProcessId);
        Assert.True(info.DatabaseConfigured);
    }

    [Theory]
    [InlineData("0", null, false, null)]
    [InlineData("1", "0", true, 0L)]
    [InlineData("1", "1", true, 1L)]
    public async Task Info_GcSwitches_ReportsWhatTheRuntimeApplied(string gcServer, string? datas, bool server, long? expectedDatas)
    {
        var env = new Dictionary<string, string> { ["DOTNET_gcServer"] = gcServer };
        if (datas is not null)
        {
            env["DOTNET_GCDynamicAdaptationMode"] = datas;
        }
        await using var sut = await SutHost.StartAsync(null, env: env);
        var info = await sut.InfoAsync();
        Assert.Equal(server, info.Gc.IsServerGC);
        if (expectedDatas is not null)
        {
            Assert.Equal(expectedDatas, info.Gc.DynamicAdaptationMode);
        }
        Assert.Empty(VariantCheck.Mismatches(new SutLaunch(new Dictionary<string, string>(), env, null), info));
    }

    [Fact]
    public async Task Info_Defaults_ReportRuntimeFrameworkAndVariants()
    {
        await using var sut = await SutHost.StartAsync(null);
        var info = await sut.InfoAsync();
        Assert.Equal(".NETCoreApp,Version=v10.0", info.TargetFramework);
        Assert.StartsWith(".NET 10", info.Runtime);
        Assert.Equal(("system-text-json", "async", "none"), (info.Serializer, info.DataAccess, info.Logging));
        Assert.False(info.DatabaseConfigured);
    }

    [Fact]
    public async Task VariantCheck_ReportedValueDiffers_NamesTheSwitch()
    {
        await using var sut = await SutHost.StartAsync(null);
        var info = await sut.InfoAsync();
        var asked = new SutLaunch(new Dictionary<string, string> { ["Serializer"] = "newtonsoft" },
            new Dictionary<string, string> { ["DOTNET_gcServer"] = "0" }, null);
        var mismatches = VariantCheck.Mismatches(asked, info);
        Assert.Contains(mismatches, m => m.StartsWith("Serializer: asked for newtonsoft, /info reports system-text-json", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("DataAccess", "blocking", "Sut:DataAccess = 'blocking' is not valid; allowed: async, sync, sync-over-async.")]
    [InlineData("Serializer", "xml", "Sut:Serializer = 'xml' is not valid; allowed: system-text-json, system-text-json-sourcegen, newtonsoft.")]
    [InlineData("Logging", "loud", "Sut:Logging = 'loud' is not valid; allowed: none, default, locked-console, source-generated.")]
    [InlineData("DataLayer", "dapper", "Sut:DataLayer = 'dapper' is not valid; allowed: ef-core, ado-net.")]
    [InlineData("Console", "tty", "Sut:Console = 'tty' is not valid; allowed: redirected, terminal.")]
    [InlineData("ThreadPool:MinWorkerThreads", "-3", "Sut:ThreadPool:MinWorkerThreads = -3 is out of range; allowed: 0..32767.")]
    [InlineData("ThreadPool:MinWorkerThreads", "many", "Sut:ThreadPool:MinWorkerThreads")]
    public async Task Start_InvalidVariantValue_RefusesToStartNamingKeyAndAllowedValues(string key, string value, string expected)
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => SutHost.StartAsync(null, new Dictionary<string, string> { [key] = value }));
        Assert.Contains("exited with code 2", ex.Message);
        Assert.Contains(expected, ex.Message);
    }

    [Fact]
    public async Task Start_ConsoleTerminalButOutputToAFile_RefusesToStartNamingTheSetting()
    {
        // Set behind perflab's back (as an environment variable, not a setting), so no terminal is opened.
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => SutHost.StartAsync(null, env: new Dictionary<string, string> { ["Sut__Console"] = "terminal" }));
        Assert.Contains("exited with code 2", ex.Message);
        Assert.Contains("Sut:Console = 'terminal' but the standard output is redirected", ex.Message);
    }

    [Fact]
    public async Task Start_PortAlreadyInUse_ExitsWithOneLineNamingTheAddressAndNoStackTrace()
    {
        using var busy = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        busy.Start();
        var port = ((System.Net.IPEndPoint)busy.LocalEndpoint).Port;
        var launch = new SutLaunch(new Dictionary<string, string>(), new Dictionary<string, string>(), null,
            Urls: $"http://127.0.0.1:{port}", LogFile: Path.Combine(Path.GetTempPath(), "perflab-tests", $"sut-{Guid.NewGuid():N}.log"));

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => SutProcess.StartAsync(launch));

        Assert.Contains("exited with code 3", ex.Message);
        Assert.Contains($"perflab-sut: Failed to bind to address http://127.0.0.1:{port}: address already in use", ex.Message);
        Assert.DoesNotContain("   at ", ex.Message);
    }
}
