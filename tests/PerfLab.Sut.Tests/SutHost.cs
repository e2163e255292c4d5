using System.Net.Http.Json;
using System.Text.Json;

namespace PerfLab.Sut.Tests;

/// <summary>A real SUT process on 127.0.0.1:0, started the way perflab starts it, with an HttpClient to it.</summary>
public sealed class SutHost : IAsyncDisposable
{
    private SutHost(SutProcess process)
    {
        Process = process;
        // A cold process's first EF Core page (model built, query compiled) took over 30 s once with the whole suite
        // and three builds beside it; a hang still ends, later.
        Client = process.CreateClient(TimeSpan.FromSeconds(90));
    }

    public SutProcess Process { get; }
    public HttpClient Client { get; }

    public static async Task<SutHost> StartAsync(string? connectionString, IReadOnlyDictionary<string, string>? settings = null,
        IReadOnlyDictionary<string, string>? env = null, string framework = SutLaunch.DefaultFramework)
    {
        var launch = new SutLaunch(settings ?? new Dictionary<string, string>(), env ?? new Dictionary<string, string>(),
            connectionString, framework, LogFile: Path.Combine(Path.GetTempPath(), "perflab-tests", $"sut-{Guid.NewGuid():N}.log"));
        return new SutHost(await SutProcess.StartAsync(launch));
    }

    public async Task<JsonElement> GetJsonAsync(string path)
    {
        using var response = await Client.GetAsync(path);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"GET {path} answered {(int)response.StatusCode}: {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }

    public Task<SutInfo> InfoAsync() => Process.GetInfoAsync();

    public async Task<JsonElement> InfoJsonAsync() => await Client.GetFromJsonAsync<JsonElement>("/info");

    public async ValueTask DisposeAsync()
    {
        Client.Dispose();
        await Process.DisposeAsync();
    }
}
