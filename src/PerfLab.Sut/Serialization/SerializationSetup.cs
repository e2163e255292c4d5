using System.Text.Json.Serialization;
using Newtonsoft.Json;
using PerfLab.Sut.Data;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Serialization;

public static class SerializationSetup
{
    /// <summary>
    /// Registers MVC with the output formatter of the active Serializer variant; serving per-request variants, with one
    /// that writes each response with the request's (<see cref="RequestSerializerFormatter"/>).
    /// </summary>
    public static void AddSerialization(this WebApplicationBuilder builder, EffectiveVariants variants)
    {
        var mvc = builder.Services.AddControllers();
        builder.Services.AddScoped<PayloadShaping>();
        if (variants.PerRequest)
        {
            RequestSerializerFormatter.Add(mvc, builder.Services);
            return;
        }
        switch (variants.Serializer)
        {
            case SerializerKind.Newtonsoft:
                mvc.AddNewtonsoftJson(o => o.SerializerSettings.ReferenceLoopHandling = ReferenceLoopHandling.Ignore);
                break;
            case SerializerKind.SystemTextJsonSourceGen:
                mvc.AddJsonOptions(o => o.JsonSerializerOptions.TypeInfoResolverChain.Insert(0, SutJsonContext.Default));
                break;
            default:
                mvc.AddJsonOptions(o => o.JsonSerializerOptions.ReferenceHandler = ReferenceHandler.IgnoreCycles);
                break;
        }
    }
}

/// <summary>Prepares entities for the request's serializer before they are written.</summary>
public sealed class PayloadShaping(RequestVariant variant)
{
    /// <summary>
    /// Source-generated System.Text.Json has no IgnoreCycles fast path, so, as seed 000 does, the sourcegen variant
    /// clears each detail's link back to its order. The other two variants drop that link while writing (IgnoreCycles
    /// writes null, Newtonsoft's ReferenceLoopHandling.Ignore leaves the property out): same data either way.
    /// </summary>
    public void ShapeOrders(IEnumerable<SalesOrderHeader> orders)
    {
        if (variant.Serializer != SerializerKind.SystemTextJsonSourceGen)
        {
            return;
        }
        foreach (var order in orders)
        {
            foreach (var detail in order.SalesOrderDetails)
            {
                detail.SalesOrderHeader = null;
            }
        }
    }
}
