namespace PerfLab.Tests.Hosts;

/// <summary>
/// Hosts sharing one home (one PERFLAB_HOST_CACHE for every namespace, as an NFS home is) and a cold cache: three
/// generators copying perflab at once into the same builds folder, then a copy altered there.
/// </summary>
[Collection(CpuHeavy.A)]
public sealed class SharedCacheDeployTests
{
    [Fact]
    public async Task Load_ThreeHostsCopyingAtOnceIntoOneCache_OneBuildServesAllAndAnAlteredOneIsCopiedAgain()
    {
        using var lab = NetnsLab.Create(["app", "gen-1", "gen-2", "gen-3"], sharedCache: true);
        using var sut = RemoteLoadTests.StartSut(lab);
        var builds = Path.Combine(lab.CacheOf(lab.Hosts["gen-1"].Namespace), "builds");
        // Six builds used before, an hour apart: with this one, the newest four are kept and the two oldest removed.
        for (var i = 0; i < 6; i++)
        {
            var old = Directory.CreateDirectory(Path.Combine(builds, $"old{i}")).FullName;
            File.WriteAllText(Path.Combine(old, ".complete"), "");
            File.SetLastWriteTimeUtc(Path.Combine(old, ".complete"), DateTime.UtcNow.AddHours(-1 - i));
        }
        string[] load = ["load", RemoteLoadTests.Url(lab), "-R", "30", "-c", "6", "-d", "1s"];
        // perflab built over an hour ago, as a user's build often is: tar gave each host's unpacked copy its folder's
        // time, so a copy still being checked looked an hour old to another host's sweep of copies cut short.
        var perflab = Path.GetDirectoryName(PerfLabProcess.CliDll)!;
        var built = Directory.GetLastWriteTimeUtc(perflab);
        Directory.SetLastWriteTimeUtc(perflab, DateTime.UtcNow.AddHours(-2));

        CliResult all;
        try
        {
            all = await HostsCheckTests.RunInController(lab,
                [.. load, "--hosts", HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, gen-2, gen-3]\n")]);
        }
        finally
        {
            Directory.SetLastWriteTimeUtc(perflab, built);
        }

        Assert.True(all.ExitCode == 0, all.ToString());
        Assert.All(new[] { "gen-1", "gen-2", "gen-3" }, g => Assert.Matches($@"load host '{g}': [^\n]*; perflab copied", all.Stderr));
        var kept = Directory.GetDirectories(builds).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToList();
        var build = Assert.Single(kept, k => !k!.StartsWith("old", StringComparison.Ordinal))!;
        Assert.Equal(["old0", "old1", "old2", "old3"], kept.Where(k => k != build));
        var config = Path.Combine(builds, build, "perflab.runtimeconfig.json");
        var whole = await File.ReadAllTextAsync(config);

        await File.AppendAllTextAsync(config, "\n");
        var again = await HostsCheckTests.RunInController(lab,
            [.. load, "--hosts", HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-2]\n")]);

        Assert.True(again.ExitCode == 0, again.ToString());
        Assert.Matches(@"load host 'gen-2': [^\n]*; perflab copied", again.Stderr);
        Assert.Equal(whole, await File.ReadAllTextAsync(config));
        Assert.Empty(Directory.GetDirectories(builds, ".*"));
    }
}
