using System.Net;
using PerfLab.Sut.Diagnostics;

namespace PerfLab.Sut.Tests;

/// <summary>
/// /diagnostics/* behind the run's token when perflab gives the SUT one (an app on another host's address): refused
/// without it or with another, served with it; other endpoints as ever. Without a token (loopback, a local run) open.
/// </summary>
public sealed class DiagnosticsAccessTests
{
    [Fact]
    public async Task Diagnostics_WithAToken_OnlyRequestsCarryingItAreServed()
    {
        await using var sut = await SutHost.StartAsync(null, env: new Dictionary<string, string> { ["Diagnostics__Token"] = "run-7f3a" });

        Assert.Equal(HttpStatusCode.NotFound, await StatusAsync(sut, "/diagnostics/lock?ms=0", null));
        Assert.Equal(HttpStatusCode.NotFound, await StatusAsync(sut, "/diagnostics/lock?ms=0", "run-7f3b"));
        Assert.Equal(HttpStatusCode.NotFound, await StatusAsync(sut, "/Diagnostics/gc-heavy?arrays=1", "run-7f3"));
        Assert.Equal(HttpStatusCode.OK, await StatusAsync(sut, "/diagnostics/lock?ms=0", "run-7f3a"));
        Assert.Equal(HttpStatusCode.OK, await StatusAsync(sut, "/info", null));
    }

    [Fact]
    public async Task Diagnostics_WithoutAToken_AreOpen()
    {
        await using var sut = await SutHost.StartAsync(null);

        Assert.Equal(HttpStatusCode.OK, await StatusAsync(sut, "/diagnostics/lock?ms=0", null));
    }

    private static async Task<HttpStatusCode> StatusAsync(SutHost sut, string path, string? token)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        if (token is not null)
        {
            request.Headers.Add(DiagnosticsAccess.Header, token);
        }
        using var response = await sut.Client.SendAsync(request);
        return response.StatusCode;
    }
}
