import { useState, type ReactNode } from 'react';
import { Box, Card, CardContent, Paper, Tab, Tabs, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';

export interface ViewTab {
  labelKey: string;
  content: ReactNode;
  /** The content brings its own card (a form). */
  framed?: boolean;
}

/** A detail screen's tabs (/applications-view, /apis-view: docs/CONSOLE.md, "Applications"); arrow keys move between tabs. */
export function ViewTabs({ title, tabs, idPrefix }: { title: string; tabs: readonly ViewTab[]; idPrefix: string }) {
  const translate = useTranslate();
  const [active, setActive] = useState(0);
  return (
    <Box sx={{ mt: 2, maxWidth: 960 }}>
      <Title title={title} />
      <Typography variant="h5" component="h1" gutterBottom>
        {title}
      </Typography>
      {/* On a paper surface: the selected tab's primary colour keeps 4.5:1 there, not on the grey page. */}
      <Paper>
        <Tabs
          value={active}
          onChange={(_event, value: number) => setActive(value)}
          variant="scrollable"
          aria-label={title}
        >
          {tabs.map((tab, index) => (
            <Tab
              key={tab.labelKey}
              label={translate(tab.labelKey)}
              id={`${idPrefix}-tab-${index}`}
              aria-controls={`${idPrefix}-panel-${index}`}
            />
          ))}
        </Tabs>
      </Paper>
      {tabs.map((tab, index) => (
        <div
          key={tab.labelKey}
          role="tabpanel"
          hidden={index !== active}
          id={`${idPrefix}-panel-${index}`}
          aria-labelledby={`${idPrefix}-tab-${index}`}
        >
          {index === active &&
            (tab.framed ? (
              tab.content
            ) : (
              <Card sx={{ mt: 2 }}>
                <CardContent>{tab.content}</CardContent>
              </Card>
            ))}
        </div>
      ))}
    </Box>
  );
}
