using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

// Stacks as BlockingApp's trace gave them (root first, trimmed): a thread serving a request is blocked where it is off
// CPU under the app's code, whatever the call, and the call is the frame the app called.
public sealed class OffCpuCallTests
{
    private static readonly AppCode s_app = new(null, "App");
    private const string Kestrel = "Microsoft.AspNetCore.Server.Kestrel.Core!Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http."
        + "HttpProtocol+<ProcessRequests>d__237`1[System.__Canon].MoveNext";
    private const string Handler = "App!Program.<Main>$ lambda b__0_5";

    [Fact]
    public void Sites_RequestThreadsOffCpuUnderTheAppsCode_NamedByTheCallTheAppMade()
    {
        var tally = new WaitTally(exampleFrames: 10, s_app);
        // Not a pool thread: any thread running the request pipeline counts.
        string[] join = [Kestrel, Handler, "App!Culprits.Join", "System.Private.CoreLib!System.Threading.Thread.Join",
            "System.Private.CoreLib!System.Threading.Thread.Join"];
        string[] native = [Kestrel, Handler, "App!Culprits.NativeSleep"];
        string[] pipe = [Kestrel, Handler, "App!Culprits.ReadPipe", "System.IO.Pipes!System.IO.Pipes.PipeStream.ReadCore",
            "System.Net.Sockets!System.Net.Sockets.Socket.Receive", "System.Net.Sockets!Interop+Sys.Read"];
        string[] main = ["App!Program.<Main>$", "System.Private.CoreLib!System.Threading.Thread.Join"];
        for (var i = 0; i < 10; i++)
        {
            tally.Add(1, managed: i == 9, join);   // its last sample on CPU: not blocked
            tally.Add(2, managed: false, native);
            tally.Add(3, managed: false, pipe);
            tally.Add(4, managed: false, main);    // serves no request and is no pool thread: left out
        }

        var sites = tally.Sites(intervalMs: 1).ToDictionary(s => s.Place, s => (TraceFindings.CallName(s), s.Samples, s.Advice));

        Assert.Equal(3, sites.Count);
        Assert.Equal(("Thread.Join()", 9L), (sites["Culprits.Join"].Item1, sites["Culprits.Join"].Samples));
        Assert.StartsWith("run the work as a Task", sites["Culprits.Join"].Advice, StringComparison.Ordinal);
        Assert.Equal(("native code via P/Invoke", 10L), (sites["Culprits.NativeSleep"].Item1, sites["Culprits.NativeSleep"].Samples));
        Assert.Equal("PipeStream.Read() (synchronous pipe I/O)", sites["Culprits.ReadPipe"].Item1);
        // No pool frame under Kestrel's: a request served outside the pool, and the finding says so.
        var joinSite = tally.Sites(intervalMs: 1).Single(s => s.Place == "Culprits.Join");
        Assert.False(joinSite.PoolThreads);
        var profile = TraceFindingsTests.Profile(cpuSamples: 2_000, gcCount: 0) with { BlockingWaits = [joinSite] };
        var finding = TraceFindings.From(profile, requests: 20).Single(f => f.Kind == TraceFindingKind.SyncOverAsync);
        Assert.Equal("Request thread (not a pool thread) blocked in Thread.Join()", finding.Title);
        Assert.Contains("blocks request threads outside the pool", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Sites_RequestOnAPoolThread_ThePoolThreadsName()
    {
        var tally = new WaitTally(exampleFrames: 10, s_app);
        string[] sleep = ["System.Private.CoreLib!System.Threading.ThreadPoolWorkQueue.Dispatch", Kestrel, Handler,
            "App!Culprits.Sleep", "System.Private.CoreLib!System.Threading.Thread.Sleep"];
        for (var i = 0; i < 5; i++)
        {
            tally.Add(1, managed: false, sleep);
        }

        Assert.True(Assert.Single(tally.Sites(intervalMs: 1)).PoolThreads);
    }

    [Fact]
    public void Sites_OneCallBlockingInTwoWays_NamedByWhatMostOfItsSamplesDid()
    {
        // A synchronous EF Core query: its first samples negotiate the connection (no listed call under it), the rest
        // read its socket. CI's host saw the negotiation first and named the whole 500 ms wait "blocking call".
        var tally = new WaitTally(exampleFrames: 10, s_app);
        string[] query = ["System.Private.CoreLib!System.Threading.ThreadPoolWorkQueue.Dispatch", Kestrel, Handler,
            "App!Queries.Sleep", "EFCore.Relational!Microsoft.EntityFrameworkCore.RelationalDatabaseFacadeExtensions.ExecuteSqlRaw"];
        string[] negotiate = [.. query, "Npgsql!Npgsql.Internal.NpgsqlConnector.GSSEncrypt",
            "System.Net.Security!Interop+NetSecurityNative.InitSecContext"];
        string[] read = [.. query, "Npgsql!Npgsql.Internal.NpgsqlReadBuffer.Ensure",
            "System.Net.Sockets!System.Net.Sockets.Socket.Receive"];
        for (var i = 0; i < 3; i++)
        {
            tally.Add(1, managed: false, negotiate);
        }
        for (var i = 0; i < 7; i++)
        {
            tally.Add(1, managed: false, read);
        }

        var site = Assert.Single(tally.Sites(intervalMs: 1));
        Assert.Equal(("synchronous socket I/O", 10L), (site.Call, site.Samples));
        Assert.Contains(site.ExampleStack, f => f.EndsWith("Socket.Receive", StringComparison.Ordinal));
    }

    // BlockingApp's own P/Invokes, read from its assembly: a DllImport called directly, and a LibraryImport whose
    // generated wrapper calls its inner DllImport.
    [Theory]
    [InlineData("BlockingApp!Culprits.NativeSleep", "libc!usleep")]
    [InlineData("BlockingApp!Culprits.ReadFifo", "libc!mkfifo")]
    [InlineData("BlockingApp!Culprits.Sleep", null)]
    [InlineData("BlockingApp!Culprits.NoSuchMethod", null)]
    public void NativeCalls_AppFrameThatCallsAPInvoke_ItsModuleAndEntryPoint(string frame, string? expected)
    {
        Assert.Equal(expected, NativeCalls.Find(BlockingApp.Dll(), frame));
    }

    [Fact]
    public void Locate_HandlerInlinedIntoTheEndpointDelegate_TheDelegateIsThePlace_NothingUnderItIsNoCall()
    {
        const string endpoint = "?!CompiledDelegate.lambda_method14 (endpoint delegate, handler inlined)";
        string[] sleep = [Kestrel, endpoint, "System.Private.CoreLib!System.Threading.Thread.Sleep"];

        Assert.Equal(new OffCpuCall.Found(1, 2), OffCpuCall.Locate(sleep, s_app));
        // The JIT compiling the handler, or the runtime's own work: no call of the app's.
        Assert.Null(OffCpuCall.Locate([Kestrel, endpoint], s_app));
        Assert.Null(OffCpuCall.Locate([Kestrel, "System.Private.CoreLib!System.Threading.Thread.Sleep"], s_app));
    }
}
