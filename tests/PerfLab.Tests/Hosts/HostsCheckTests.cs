using System.Diagnostics;
using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

public sealed class HostsCheckTests
{
    [Fact]
    public async Task Check_HostsInNamespaces_ReportsFactsClockAndRoundTrips()
    {
        using var lab = NetnsLab.Create(["app", "gen-1", "gen-2"]);
        var file = Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, gen-2]\n");

        var result = await RunInController(lab, "hosts", "check", file, "--json");

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(result.Stdout);
        var hosts = json.RootElement.GetProperty("hosts").EnumerateArray().ToList();
        Assert.Equal(["app", "gen-1", "gen-2"], hosts.Select(h => h.GetProperty("facts").GetProperty("destination").GetString()));
        foreach (var host in hosts)
        {
            var facts = host.GetProperty("facts");
            Assert.Equal(lab.Hosts[facts.GetProperty("destination").GetString()!].Address, facts.GetProperty("address").GetString());
            Assert.Equal(Environment.ProcessorCount, facts.GetProperty("cores").GetInt32());
            Assert.StartsWith("10.", facts.GetProperty("runtime").GetString(), StringComparison.Ordinal);
            // Namespaces share this machine's clock: the true offset is 0, so the estimate lies within its uncertainty (plus a scheduling slip).
            var clock = host.GetProperty("clock");
            Assert.InRange(Math.Abs(clock.GetProperty("offsetMs").GetDouble()), 0, clock.GetProperty("uncertaintyMs").GetDouble() + 0.5);
            Assert.InRange(clock.GetProperty("uncertaintyMs").GetDouble(), 0, 5);
        }
        var links = json.RootElement.GetProperty("links").EnumerateArray().ToList();
        Assert.Equal(["gen-1 -> app", "gen-2 -> app"], links.Select(l => $"{l.GetProperty("from").GetString()} -> {l.GetProperty("to").GetString()}"));
        Assert.All(links, l => Assert.InRange(l.GetProperty("rttMs").GetDouble(), 0.001, 5));
    }

    [Fact]
    public async Task Check_UnreachableHostRefusedKeyAndNoRuntime_Exit4NamingEachWithItsFix()
    {
        using var lab = NetnsLab.Create(["app", "gen-1"], withoutDotnet: ["app"]);
        NetnsLab.Run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", Path.Combine(lab.Folder, "stranger_key"));
        var gen = lab.Hosts["gen-1"].Address;
        var nowhere = gen[..gen.LastIndexOf('.')] + ".250";
        File.AppendAllText(lab.SshConfig,
            $"Host wrong-key\n  HostName {gen}\n  User root\n  IdentityFile {lab.Folder}/stranger_key\n  IdentitiesOnly yes\n  UserKnownHostsFile {lab.Folder}/known_hosts\n\n" +
            $"Host ghost\n  HostName {nowhere}\n  User root\n  IdentityFile {lab.UserKey}\n  ConnectTimeout 2\n\n");
        var file = Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, wrong-key, ghost]\n");

        var result = await RunInController(lab, "hosts", "check", file);

        Assert.True(result.ExitCode == (int)ExitCode.Unreachable, result.ToString());
        Assert.Contains("app host 'app': no .NET 10 runtime (found none): install", result.Stderr, StringComparison.Ordinal);
        Assert.Contains("load host 'wrong-key': the host refused the key: add your public key", result.Stderr, StringComparison.Ordinal);
        Assert.Contains("load host 'ghost': it does not answer on the network", result.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("'gen-1'", result.Stderr, StringComparison.Ordinal);
        Assert.Empty(result.Stdout);
        Assert.All(lab.Hosts.Keys, h => Assert.Empty(lab.ProcessesBesidesSshd(h)));
    }

    [Fact]
    public async Task Check_AppHostWithoutAspNetCore_Exit4NamingThePackage_AGeneratorGivenAsAnSshUrlNeedsNone()
    {
        using var lab = NetnsLab.Create(["app", "gen-1"], withoutAspNetCore: ["app", "gen-1"]);
        var gen = lab.Hosts["gen-1"].Address;
        File.AppendAllText(lab.SshConfig, $"Host {gen}\n  IdentityFile {lab.UserKey}\n  IdentitiesOnly yes\n"
            + $"  UserKnownHostsFile {lab.Folder}/known_hosts\n  StrictHostKeyChecking yes\n\n");
        var file = Write(lab, $"ssh-config: ./ssh_config\napp: app\nload: [\"ssh://root@{gen}:22\"]\n");

        var result = await RunInController(lab, "hosts", "check", file);

        Assert.True(result.ExitCode == (int)ExitCode.Unreachable, result.ToString());
        Assert.Contains("app host 'app': the built-in SUT needs Microsoft.AspNetCore.App 10, which it lacks (found none): "
            + "install aspnetcore-runtime-10.0 there", result.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("load host", result.Stderr, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("app: a\n", "h.yaml:1:1: load: is missing")]
    [InlineData("app: root@h:2222\nload: [g1]\n", "h.yaml:1:6: app: 'root@h:2222' is not an ssh destination (ssh reads host:port "
        + "as a host so named): write ssh://root@h:2222")]
    [InlineData("app: a\nload: [g1]\nbogus: 1\n", "h.yaml:3:1: unknown key 'bogus'")]
    [InlineData("app: a\nload: [g1, g1]\n", "h.yaml:2:7: load: names 'g1' twice")]
    [InlineData("app: -oProxyCommand=x\nload: [g1]\n", "h.yaml:1:6: app: '-oProxyCommand=x' is not an ssh destination")]
    [InlineData("app: a\ndb: { conn: x }\nload: [g1]\n", "h.yaml:2:5: db: expected a destination or { connection-string")]
    [InlineData("ssh-config: ./missing\napp: a\nload: [g1]\n", "h.yaml:1:13: ssh-config:")]
    [InlineData("app: [a\n", "h.yaml:")]
    public async Task Check_MalformedFile_Exit2WithFileAndLine(string text, string expected)
    {
        var folder = Directory.CreateTempSubdirectory("perflab-hosts-").FullName;
        try
        {
            var file = Path.Combine(folder, "h.yaml");
            await File.WriteAllTextAsync(file, text);

            var result = await PerfLabProcess.RunAsync("hosts", "check", file);

            Assert.True(result.ExitCode == (int)ExitCode.Usage, result.ToString());
            Assert.Contains(expected, result.Stderr, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    internal static string Write(NetnsLab lab, string text)
    {
        var file = Path.Combine(lab.Folder, "hosts.yaml");
        File.WriteAllText(file, text);
        return file;
    }

    /// <summary>perflab run as the controller, inside the lab's controller namespace (the only one that reaches the hosts).</summary>
    internal static Task<CliResult> RunInController(NetnsLab lab, params string[] args) => RunInController(lab, null, args);

    /// <param name="environment">
    /// The CLI's environment beside the usual (see <see cref="PerfLabProcess.StartInfo"/>), e.g. its cache.
    /// </param>
    internal static async Task<CliResult> RunInController(NetnsLab lab, IReadOnlyDictionary<string, string>? environment,
        params string[] args)
    {
        var info = PerfLabProcess.StartInfo(environment, args);
        info.FileName = "ip";
        foreach (var (arg, i) in new[] { "netns", "exec", lab.Controller, "dotnet" }.Select((a, i) => (a, i)))
        {
            info.ArgumentList.Insert(i, arg);
        }
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        // A guard against a hang, not a timing: a lab's first run seeds a cluster (over 120 s once at load average 60).
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(240));
        try
        {
            await process.WaitForExitAsync(cts.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"perflab {string.Join(' ', args)} did not finish within 240 s.");
        }
        return new CliResult(process.ExitCode, await stdout, await stderr);
    }
}
