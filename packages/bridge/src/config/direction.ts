/** Which way a gateway channel carries messages: `in` feeds the gateway, `out` receives from it. */
export type Direction = "in" | "out" | "inout";
