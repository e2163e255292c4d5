using System.Diagnostics;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace PerfLab.Tests.Load;

/// <summary>A real Kestrel app on 127.0.0.1:0 with endpoints whose timing and answers the tests know.</summary>
internal sealed class TestServer : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private int _requests;
    private long _firstStallRequestTicks = -1;

    private TestServer(WebApplication app)
    {
        _app = app;
    }

    public Uri BaseUri { get; private set; } = null!;

    /// <summary>Requests that reached an endpoint.</summary>
    public int Requests => Volatile.Read(ref _requests);

    public List<string> Ids { get; } = [];

    /// <summary>/stall holds every request arriving in [first + StallAfter, first + StallAfter + StallFor) until the window ends.</summary>
    public TimeSpan StallAfter { get; set; } = TimeSpan.FromSeconds(2);
    public TimeSpan StallFor { get; set; } = TimeSpan.FromSeconds(1);

    public Uri Url(string pathAndQuery) => new(BaseUri, pathAndQuery);

    public static async Task<TestServer> StartAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        var app = builder.Build();
        var server = new TestServer(app);
        app.Use(async (context, next) =>
        {
            Interlocked.Increment(ref server._requests);
            await next(context);
        });
        app.MapGet("/fast", () => "ok");
        app.MapGet("/delay", async (int ms) =>
        {
            await Task.Delay(ms);
            return "ok";
        });
        app.MapGet("/status/{code:int}", (int code) => Results.StatusCode(code));
        app.MapGet("/orders/{id}", (string id) =>
        {
            lock (server.Ids)
            {
                server.Ids.Add(id);
            }
            return id;
        });
        app.MapGet("/ids", () => new[] { 43659, 43660, 43661 });
        app.MapGet("/stall", async () =>
        {
            var now = server._clock.Elapsed.Ticks;
            Interlocked.CompareExchange(ref server._firstStallRequestTicks, now, -1);
            var from = TimeSpan.FromTicks(Volatile.Read(ref server._firstStallRequestTicks)) + server.StallAfter;
            var until = from + server.StallFor;
            var at = TimeSpan.FromTicks(now);
            if (at >= from && at < until)
            {
                await Task.Delay(until - at);
            }
            return "ok";
        });
        await app.StartAsync();
        var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        server.BaseUri = new Uri(address);
        return server;
    }

    public Task StopAsync() => _app.StopAsync(TimeSpan.FromMilliseconds(100));

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync(TimeSpan.FromMilliseconds(100));
        await _app.DisposeAsync();
    }
}
