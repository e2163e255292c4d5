using System.Net;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Results;
using PerfLab.Sut.Diagnostics;
using PerfLab.Sut.Hosting;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

/// <summary>
/// Sut:PerRequestVariants: a request's X-PerfLab-Variant header chooses its serializer, logging and extra work, honoured
/// only in that mode and only with the run's token; a process without the mode, or a request without the token, is
/// served with the process's own switches.
/// </summary>
public sealed class RequestVariantsTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private const string Token = "run-9c1e";
    private static readonly Dictionary<string, string> WithToken = new() { ["Diagnostics__Token"] = Token };

    [Fact]
    public async Task PerRequestVariants_HeaderWithToken_ServesTheRequestsSwitchesAndOnlyThen()
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["PerRequestVariants"] = "true" }, WithToken);

        var asked = await InfoAsync(sut, "Serializer=newtonsoft; Logging=locked-console; ExtraWorkMicroseconds=2500", Token);
        Assert.True(asked.GetProperty("perRequestVariants").GetBoolean());
        Assert.Equal("newtonsoft", asked.GetProperty("serializer").GetString());
        Assert.Equal("locked-console", asked.GetProperty("logging").GetString());
        Assert.Equal(2500, asked.GetProperty("extraWorkMicroseconds").GetInt32());
        // Without the token, or with another, the header is not honoured: the process's own switches.
        foreach (var token in new[] { null, "run-9c1f" })
        {
            var plain = await InfoAsync(sut, "Serializer=newtonsoft; ExtraWorkMicroseconds=2500", token);
            Assert.Equal("system-text-json", plain.GetProperty("serializer").GetString());
            Assert.Equal(0, plain.GetProperty("extraWorkMicroseconds").GetInt32());
        }

        // Newtonsoft leaves the details' link to their order out; System.Text.Json writes it as null.
        var newtonsoft = await BodyAsync(sut, "/customer/orders/43660", "Serializer=newtonsoft", Token);
        var stj = await BodyAsync(sut, "/customer/orders/43660", "Serializer=system-text-json", Token);
        Assert.False(newtonsoft.GetProperty("salesOrderDetails")[0].TryGetProperty("salesOrderHeader", out _));
        Assert.Equal(JsonValueKind.Null, stj.GetProperty("salesOrderDetails")[0].GetProperty("salesOrderHeader").ValueKind);
        Assert.Equal(43660, newtonsoft.GetProperty("salesOrderID").GetInt32());

        // The locked console writes its line before the response; a request asking for no logging writes none.
        await BodyAsync(sut, "/customer/orders/43661", "Logging=locked-console", Token);
        await BodyAsync(sut, "/customer/orders/43662", "Logging=none", Token);
        var log = await LogWithAsync(sut, "43661");
        Assert.Contains("Information PerfLab.Sut.Logging.RequestLog[0] Served order 43661", log);
        Assert.DoesNotContain("43662", log);

        using var bad = new HttpRequestMessage(HttpMethod.Get, "/info");
        bad.Headers.Add(RequestVariants.Header, "GcServer=true");
        bad.Headers.Add(DiagnosticsAccess.Header, Token);
        using var refused = await sut.Client.SendAsync(bad);
        Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
        Assert.Contains("'GcServer' is not a per-request switch", await refused.Content.ReadAsStringAsync());
    }

    [Fact]
    public async Task PerRequestVariants_Off_HeaderIgnoredEvenWithTheToken()
    {
        await using var sut = await SutHost.StartAsync(null, env: WithToken);

        var info = await InfoAsync(sut, "Serializer=newtonsoft; ExtraWorkMicroseconds=2500", Token);
        Assert.False(info.GetProperty("perRequestVariants").GetBoolean());
        Assert.Equal("system-text-json", info.GetProperty("serializer").GetString());
        Assert.Equal(0, info.GetProperty("extraWorkMicroseconds").GetInt32());
    }

    [Fact]
    public async Task PerRequestVariants_WithoutAToken_RefusedAtStartNamingTheToken()
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            SutHost.StartAsync(null, new Dictionary<string, string> { ["PerRequestVariants"] = "true" }));
        Assert.Contains("Sut:PerRequestVariants needs Diagnostics:Token", ex.Message);
    }

    [Fact]
    public void PerRequestSettings_TheLabsList_IsTheSutsList() =>
        Assert.Equal(RequestVariants.Keys, BlockMethod.PerRequestSettings);

    // The log file may be written a moment after the response; bounded, never a fixed sleep.
    private static async Task<string> LogWithAsync(SutHost sut, string text)
    {
        var log = sut.Process.TailOfLog(200);
        for (var i = 0; i < 100 && !log.Contains(text, StringComparison.Ordinal); i++)
        {
            await Task.Delay(100);
            log = sut.Process.TailOfLog(200);
        }
        return log;
    }

    private static async Task<JsonElement> InfoAsync(SutHost sut, string header, string? token) =>
        await BodyAsync(sut, "/info", header, token);

    private static async Task<JsonElement> BodyAsync(SutHost sut, string path, string header, string? token)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.Add(RequestVariants.Header, header);
        if (token is not null)
        {
            request.Headers.Add(DiagnosticsAccess.Header, token);
        }
        using var response = await sut.Client.SendAsync(request);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"GET {path} answered {(int)response.StatusCode}: {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }
}
