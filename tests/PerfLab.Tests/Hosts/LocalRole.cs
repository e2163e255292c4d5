using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>A role played by bash on this machine, in the session a local host runs (no ssh): the controller's end is real.</summary>
internal static class LocalRole
{
    public static RoleSession Start(string role, string what, string script) =>
        RoleSession.Start(new SshClient(null), new HostRef(role, HostRef.LocalName), what, script, input: null, say: null);

    public static HostRef Host(string role) => new(role, HostRef.LocalName);
}
