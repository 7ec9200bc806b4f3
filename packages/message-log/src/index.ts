export { MessageLog, type BatchPage, type MessagePage } from './message-log';
export { messageStory, type StoryFacts } from './message-story';
export { messageSummary, type MessageVisibility } from './message-views';
export { searchWindow, type SearchWindow } from './search-window';
export { statsReport } from './stats-report';
export { liveStats } from './live-stats';
