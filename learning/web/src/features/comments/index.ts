// The comments feature's public entry: what the rest of the app may use.
export { CommentsPanel } from "./components/comments-panel";
