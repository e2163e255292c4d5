using System.Diagnostics;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
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
    private int _inFlight;
    private int _mostInFlight;
    private long _firstStallRequestTicks = -1;

    private TestServer(WebApplication app)
    {
        _app = app;
    }

    public Uri BaseUri { get; private set; } = null!;

    /// <summary>Requests that reached an endpoint.</summary>
    public int Requests => Volatile.Read(ref _requests);

    /// <summary>
    /// The most requests the server held at once: how many users really overlapped, counted where they arrive, so a
    /// stalled client cannot change it (it only delays them all).
    /// </summary>
    public int MostInFlight => Volatile.Read(ref _mostInFlight);

    public List<string> Ids { get; } = [];

    /// <summary>Every body POSTed to /orders, as received, with its Content-Type.</summary>
    public System.Collections.Concurrent.ConcurrentQueue<(string Body, string? ContentType, string? Tenant)> Posted { get; } = new();

    public string? LastProtocol { get; private set; }

    /// <summary>When /slowstart last answered a request of its slow start (its own clock, the machine's wall clock).</summary>
    public DateTimeOffset? LastSlowAnswerUtc { get; private set; }

    /// <summary>/stall holds every request arriving in [first + StallAfter, first + StallAfter + StallFor) until the window ends.</summary>
    public TimeSpan StallAfter { get; set; } = TimeSpan.FromSeconds(2);
    private long _firstSlowStartTicks = -1;
    public TimeSpan StallFor { get; set; } = TimeSpan.FromSeconds(1);

    public Uri Url(string pathAndQuery) => new(BaseUri, pathAndQuery);

    /// <param name="http2Only">Listen for HTTP/2 with prior knowledge (h2c) only, as Kestrel needs for cleartext HTTP/2.</param>
    public static async Task<TestServer> StartAsync(bool http2Only = false)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0, o => o.Protocols = http2Only ? HttpProtocols.Http2 : HttpProtocols.Http1));
        builder.Logging.ClearProviders();
        var app = builder.Build();
        var server = new TestServer(app);
        app.Use(async (context, next) =>
        {
            Interlocked.Increment(ref server._requests);
            server.LastProtocol = context.Request.Protocol;
            var inFlight = Interlocked.Increment(ref server._inFlight);
            for (var most = Volatile.Read(ref server._mostInFlight); inFlight > most; most = Volatile.Read(ref server._mostInFlight))
            {
                Interlocked.CompareExchange(ref server._mostInFlight, inFlight, most);
            }
            try
            {
                await next(context);
            }
            finally
            {
                Interlocked.Decrement(ref server._inFlight);
            }
        });
        app.MapGet("/fast", () => "ok");
        app.MapGet("/delay", async (int ms) =>
        {
            await Task.Delay(ms);
            return "ok";
        });
        // Slow (slowMs) for the first `seconds` after the first call, then steady (ms): a SUT still warming up.
        app.MapGet("/slowstart", async (int slowMs, int ms, double seconds) =>
        {
            var now = server._clock.Elapsed.Ticks;
            Interlocked.CompareExchange(ref server._firstSlowStartTicks, now, -1);
            var warming = TimeSpan.FromTicks(now - Volatile.Read(ref server._firstSlowStartTicks)) < TimeSpan.FromSeconds(seconds);
            await Task.Delay(warming ? slowMs : ms);
            if (warming)
            {
                server.LastSlowAnswerUtc = DateTimeOffset.UtcNow;
            }
            return "ok";
        });
        app.MapGet("/status/{code:int}", (int code) => Microsoft.AspNetCore.Http.Results.StatusCode(code));
        app.MapGet("/orders/{id}", (string id) =>
        {
            lock (server.Ids)
            {
                server.Ids.Add(id);
            }
            return id;
        });
        app.MapGet("/ids", () => new[] { 43659, 43660, 43661 });
        // Requests with bodies: /orders keeps each body and answers 201 with its length; /echo answers the body back
        // as JSON with the status asked; /json-chunked sends a JSON document in two chunks.
        app.MapPost("/orders", async (HttpContext context) =>
        {
            using var reader = new StreamReader(context.Request.Body);
            var body = await reader.ReadToEndAsync();
            server.Posted.Enqueue((body, context.Request.ContentType, context.Request.Headers["X-Tenant"].FirstOrDefault()));
            return Microsoft.AspNetCore.Http.Results.Json(new { received = System.Text.Encoding.UTF8.GetByteCount(body) }, statusCode: 201);
        });
        app.MapPost("/echo", async (HttpContext context, int? status) =>
        {
            using var copy = new MemoryStream();
            await context.Request.Body.CopyToAsync(copy);
            context.Response.StatusCode = status ?? 200;
            context.Response.ContentType = "application/json";
            context.Response.ContentLength = copy.Length;
            await context.Response.Body.WriteAsync(copy.ToArray());
        });
        app.MapGet("/json-chunked", async (HttpContext context) =>
        {
            context.Response.ContentType = "application/json";
            await context.Response.WriteAsync("{\"total\": ");
            await context.Response.Body.FlushAsync();
            await context.Response.WriteAsync("42, \"items\": [{\"id\": 7}, {\"id\": 8, \"name\": \"Bike\"}]}");
        });
        // Bodies the generator must count exactly: chunked (no Content-Length, one flush per KiB), a Content-Length
        // larger than its buffer, and an answer that closes its connection.
        app.MapGet("/chunked", async (HttpContext context, int kb) =>
        {
            var block = new byte[1024];
            for (var i = 0; i < kb; i++)
            {
                await context.Response.Body.WriteAsync(block);
                await context.Response.Body.FlushAsync();
            }
        });
        app.MapGet("/big", (int kb) => Microsoft.AspNetCore.Http.Results.Bytes(new byte[kb * 1024], "application/octet-stream"));
        app.MapGet("/close", (HttpContext context) =>
        {
            context.Response.Headers.Connection = "close";
            return "closing";
        });
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
