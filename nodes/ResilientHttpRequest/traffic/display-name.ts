/** How the log lines of this node's traffic name it: its display name (ResilientHttpRequest.node.ts). */
export const NODE_DISPLAY_NAME = 'Resilient HTTP Request';
